import { describe, expect, it } from 'vitest';
import { PostgresValueError } from '../../src/postgres/errors.js';
import { int8, readInt8, readNullableInt8 } from '../../src/postgres/int8.js';
import { decodeText, encodeText } from '../../src/postgres/text-codec.js';

describe('bigint milliseconds', () => {
  it('reads int8 as pg returns it (text), or as a number or BigInt from a pool with its own parsers, exactly', () => {
    const ms = Date.UTC(2262, 3, 11, 23, 47, 16, 854);
    expect(readInt8(String(ms), 'at')).toBe(ms);
    expect(readInt8(ms, 'at')).toBe(ms);
    expect(readInt8(BigInt(ms), 'at')).toBe(ms);
    expect(readInt8('9007199254740991', 'at')).toBe(Number.MAX_SAFE_INTEGER);
    expect(readInt8('-5', 'at')).toBe(-5);
    expect(readNullableInt8(null, 'at')).toBeNull();
  });

  it('refuses what would round: past 2^53, fractions, and text that is not an integer', () => {
    for (const value of ['9007199254740993', 9007199254740992, BigInt('9007199254740993'), '1.5', '1e3', '', 1.5, undefined]) {
      expect(() => readInt8(value, 'at')).toThrow(PostgresValueError);
    }
  });

  it('writes only whole milliseconds, with the field named', () => {
    expect(int8(1_700_000_000_123, 'now')).toBe(1_700_000_000_123);
    expect(() => int8(1.5, 'now')).toThrow(expect.objectContaining({ code: 'UNSAFE_INTEGER', details: { field: 'now', value: 1.5 } }));
    expect(() => int8(2 ** 60, 'now')).toThrow(PostgresValueError);
    expect(() => int8(Number.NaN, 'now')).toThrow(PostgresValueError);
  });
});

describe('text PostgreSQL cannot hold as it is', () => {
  it('keeps ordinary text unchanged, readable in psql', () => {
    for (const text of ['evt_4mVt9QeZxK2hRw7L', 'Grüße 💶 „UGB“', '']) expect(encodeText(text)).toBe(text);
  });

  it('round-trips NUL, unpaired surrogates and the marker itself, each to a distinct stored form', () => {
    const tricky = ['evt_\u0000', 'evt_\ud800', 'evt_\udbff', 'evt_\udc00x', '\u0001"evt"', '\u0001', 'a\u0000b\u0000'];
    const stored = tricky.map(encodeText);
    expect(new Set(stored).size).toBe(tricky.length);
    for (const value of stored) {
      expect(value.includes('\u0000')).toBe(false);
      expect(value).not.toMatch(/[\ud800-\udfff]/);
    }
    expect(stored.map(decodeText)).toEqual(tricky);
  });
});
