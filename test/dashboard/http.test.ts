import { describe, expect, it } from 'vitest';
import { cameOverHttps, wantsHtml } from '../../src/dashboard/http.js';

describe('wantsHtml: a browser names text/html, anything else gets the JSON envelope', () => {
  it.each([
    ['Chromium opening a page', 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8', true],
    ['Firefox opening a page', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', true],
    ['XHTML only', 'application/xhtml+xml', true],
    ['curl', '*/*', false],
    ['fetch() without an Accept', undefined, false],
    ['an API client', 'application/json', false],
    ['an empty header', '', false],
    ['repeated headers', ['application/json', 'text/html'], true],
  ] as const)('%s → %s', (_name, accept, html) => {
    expect(wantsHtml(accept as string | string[] | undefined)).toBe(html);
  });
});

describe('cameOverHttps: TLS, or a proxy that says https', () => {
  it.each([
    ['a TLS connection', {}, true, true],
    ['plain http', {}, false, false],
    ['X-Forwarded-Proto: https', { 'x-forwarded-proto': 'https' }, false, true],
    ['X-Forwarded-Proto: HTTPS', { 'x-forwarded-proto': 'HTTPS' }, false, true],
    ['X-Forwarded-Proto: https, http (the first proxy saw https)', { 'x-forwarded-proto': 'https, http' }, false, true],
    ['X-Forwarded-Proto: http, https', { 'x-forwarded-proto': 'http, https' }, false, false],
    ['Forwarded: proto=https', { forwarded: 'for=192.0.2.43;proto=https' }, false, true],
    ['Forwarded: proto="https"', { forwarded: 'proto="https";by=203.0.113.43' }, false, true],
    ['Forwarded: proto=http, proto=https', { forwarded: 'proto=http, proto=https' }, false, false],
    ['Forwarded: proto=httpsx', { forwarded: 'proto=httpsx' }, false, false],
  ] as const)('%s → %s', (_name, headers, tls, https) => {
    expect(cameOverHttps(headers, tls)).toBe(https);
  });
});
