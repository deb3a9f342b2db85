import { describe, expect, it } from 'vitest';
import { parseRedactionPath, redact, WILDCARD } from '../../src/logging/log-redaction.js';

const paths = (...written: string[]) => written.map(parseRedactionPath);

describe('parseRedactionPath (pino\'s syntax)', () => {
  it.each([
    ['secret', ['secret']],
    ['*.secret', [WILDCARD, 'secret']],
    ['headers.authorization', ['headers', 'authorization']],
    ['["x-svc-signature"]', ['x-svc-signature']],
    ['*["x-svc-signature"]', [WILDCARD, 'x-svc-signature']],
    ["request['x-key'].value", ['request', 'x-key', 'value']],
    ['items[0]', ['items', '0']],
    ['items[*].token', ['items', WILDCARD, 'token']],
    ['a["quote\\"d"]', ['a', 'quote"d']],
    ['a[b]', ['a', 'b']],
    ['.a', ['a']],
  ])('%s → its keys', (path, keys) => {
    expect(parseRedactionPath(path)).toEqual(keys);
  });

  it.each(['', '"x-svc-signature"', 'a..b', 'a[', 'a]'])('%s → refused (pino refuses it too, or reads it as no path)', (path) => {
    expect(() => parseRedactionPath(path)).toThrow('Not a redaction path');
  });
});

describe('redact', () => {
  it('blanks what the paths name, copies what it changes and shares the rest', () => {
    const shared = { untouched: true };
    const value = { secret: 's', nested: { secret: 's', keep: 1 }, list: [{ token: 't' }], shared };
    const result = redact(value, paths('secret', '*.secret', 'list[*].token'), 'X');
    expect(result).toEqual({ secret: 'X', nested: { secret: 'X', keep: 1 }, list: [{ token: 'X' }], shared });
    expect(result.shared).toBe(shared);
    expect(value).toEqual({ secret: 's', nested: { secret: 's', keep: 1 }, list: [{ token: 't' }], shared });
  });

  it('returns the value itself when no path matches, and adds no property that was absent', () => {
    const value = { a: 1, b: { c: 2 } };
    expect(redact(value, paths('secret', '*.secret', 'b.c.d'), 'X')).toBe(value);
  });

  it("keeps an Error's message, stack and class when it blanks one of its properties", () => {
    const error = Object.assign(new TypeError('boom'), { secret: 's' });
    const { err } = redact({ err: error }, paths('*.secret'), 'X');
    expect(err).toBeInstanceOf(TypeError);
    expect(err).not.toBe(error);
    expect({ message: err.message, stack: err.stack, secret: err.secret }).toEqual({ message: 'boom', stack: error.stack, secret: 'X' });
    expect(error.secret).toBe('s');
  });
});
