import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { secretsEqual } from '../../src/dashboard/secret-equal.js';
import { characters, tokenLengthInBytes } from './hostile-values.js';

const token = randomBytes(32).toString('base64url');

describe('secretsEqual', () => {
  it('the token itself → true; nothing given → false', () => {
    expect(secretsEqual(token, token)).toBe(true);
    expect(secretsEqual(undefined, token)).toBe(false);
  });

  it.each([
    ['one character less', token.slice(0, -1)],
    ['one character more', `${token}A`],
    ['the last character changed', `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`],
    ['43 characters, 44 bytes (a two-byte é last)', `${token.slice(0, -1)}é`],
    ['43 characters, 46 bytes (a four-byte emoji is two UTF-16 units)', `${token.slice(0, -2)}😀`],
    ['a lone surrogate', `${token.slice(0, -1)}\ud800`],
    ['the token as latin1 of its UTF-8 with a high byte', `${token.slice(0, -1)}\u00e9`],
    ['empty', ''],
    ['10 kB', 'A'.repeat(10_240)],
  ])('%s → false, without throwing', (_name, given) => {
    expect(secretsEqual(given, token)).toBe(false);
  });

  it('any string, of any length in characters or bytes: equal exactly when it is the token (1000 cases)', () => {
    fc.assert(
      fc.property(fc.oneof(characters, tokenLengthInBytes.map((bytes) => bytes.toString('latin1')), fc.constant(token)), (given) => {
        expect(secretsEqual(given, token)).toBe(given === token);
      }),
      { numRuns: 1000 },
    );
  });
});
