import { describe, expect, it } from 'vitest';
import { hasDotSegment, requestTarget } from '../../src/dashboard/request-target.js';

describe('requestTarget: the path as sent, never resolved', () => {
  it.each([
    ['/admin/webhooks/deliveries?status=retrying&page=2', '/admin/webhooks/deliveries', 'status=retrying&page=2'],
    ['//evil.example/x?token=t', '//evil.example/x', 'token=t'],
    ['/.//evil.example/x', '/.//evil.example/x', ''],
    ['/a/../b', '/a/../b', ''],
    ['/a%2Fb?x=%C3%A9', '/a%2Fb', 'x=%C3%A9'],
    ['/a#frag?not-a-query', '/a', ''],
    ['/a?x=1#frag', '/a', 'x=1'],
    ['http://proxy.example/admin/webhooks?x=1', '/admin/webhooks', 'x=1'],
    ['http://proxy.example', '/', ''],
    ['*', '*', ''],
  ])('%s → path %s, query %s', (target, path, query) => {
    const parsed = requestTarget(target);
    expect(parsed.path).toBe(path);
    expect(parsed.query.toString()).toBe(new URLSearchParams(query).toString());
  });
});

describe('hasDotSegment', () => {
  it.each(['/.', '/..', '/./x', '/x/..', '/x/../y', '/%2e', '/%2E', '/%2e%2E/x', '/.%2e/x', '/%2e./x', '/x\\..\\y', '/x/..\\y', '/.//evil.example/x'])('%s → yes', (path) => {
    expect(hasDotSegment(path)).toBe(true);
  });

  it.each(['/', '/x', '//evil.example/x', '/x.y', '/.well-known/x', '/...', '/..x', '/%2e%2e%2e', '/x%2F..', '/file.css'])('%s → no', (path) => {
    expect(hasDotSegment(path)).toBe(false);
  });
});
