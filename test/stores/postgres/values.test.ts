import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PostgresValueError } from '../../../src/stores/postgres/errors.js';
import { int8, readInt8, readNullableInt8 } from '../../../src/stores/postgres/int8.js';
import { runAndCommit, sqlArrayLiteral, sqlLiteral, statementPreparer } from '../../../src/stores/postgres/statement.js';
import { decodeText, encodeText } from '../../../src/stores/postgres/text-codec.js';
import { useTestDatabase } from '../../helpers/postgres.js';

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

describe('values written into a statement\'s text (a claim\'s or a record batch\'s, sent with its COMMIT)', () => {
  const database = useTestDatabase({ poolSize: 2 });
  // Quotes and backslashes for the string literal; braces, commas, double quotes, spaces and a
  // "NULL" for the array's text form inside it.
  const tricky = ["it's", 'back\\slash', "\\'", "''", 'Grüße 💶', '', 'E\'x\'', '$1', '\\\\\'', '"', '\\"', '{a,b}', 'NULL', ' spaced ', ',', '}"{'];

  it('reads back every string, number, flag and NULL as it was, alone and in arrays of each type', async () => {
    const { rows } = await database.pool.query<{ texts: string[]; text: string; ints: number[]; bigs: string[]; floats: number[]; flags: (boolean | null)[]; empty: number[]; nothing: null }>(
      `SELECT ${sqlArrayLiteral(tricky, 'text')} AS texts, ${sqlLiteral(tricky[0])}::text AS text, ${sqlArrayLiteral([1, -2, null], 'int')} AS ints,
        ${sqlArrayLiteral([Number.MAX_SAFE_INTEGER, 0], 'bigint')} AS bigs, ${sqlArrayLiteral([0.1, 1e-7, 2.5e300, -3], 'float8')} AS floats,
        ${sqlArrayLiteral([true, false, null], 'boolean')} AS flags, ${sqlArrayLiteral([], 'int')} AS empty, ${sqlLiteral(null)} AS nothing`,
    );
    expect(rows[0]).toEqual({ texts: tricky, text: "it's", ints: [1, -2, null], bigs: [String(Number.MAX_SAFE_INTEGER), '0'], floats: [0.1, 1e-7, 2.5e300, -3], flags: [true, false, null], empty: [], nothing: null });
  });

  it('reads back any text array as it was (every string PostgreSQL text can hold)', async () => {
    // PostgreSQL text holds no NUL; the stores encode it (text-codec.ts) before a value gets here.
    const text = fc.string({ unit: 'grapheme', maxLength: 12 }).filter((value) => !value.includes('\u0000'));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(text, { nil: null }), { maxLength: 8 }), async (values) => {
        const { rows } = await database.pool.query<{ values: (string | null)[] }>(`SELECT ${sqlArrayLiteral(values, 'text')} AS values`);
        expect(rows[0]!.values).toEqual(values);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses what it cannot write exactly', () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, {}, [1], 1n, Symbol('x')]) {
      expect(() => sqlLiteral(value)).toThrow(PostgresValueError);
      expect(() => sqlArrayLiteral(['ok', value], 'text')).toThrow(PostgresValueError);
    }
  });

  it('runs a statement, then, once pg has prepared it on the connection, runs it with its COMMIT in one round trip', async () => {
    const schema = database.newSchema();
    await database.pool.query(`CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".t (n bigint, texts text[])`);
    const statement = statementPreparer(true)(`INSERT INTO "${schema}".t (n, texts) VALUES ($1, $2::text[]) RETURNING n`);
    const client = await database.pool.connect();
    try {
      const outcomes = [];
      for (const n of [1, 2]) {
        await client.query('BEGIN');
        const { result, committed } = await runAndCommit(client, statement, [n, tricky], ['bigint', 'text[]']);
        if (!committed) await client.query('COMMIT');
        outcomes.push([committed, result.rows]);
      }
      expect(outcomes).toEqual([
        [false, [{ n: '1' }]],
        [true, [{ n: '2' }]],
      ]);
      // Committed: no transaction is left open on the connection.
      expect((await client.query('SELECT now() = statement_timestamp() AS outside')).rows).toEqual([{ outside: true }]);
    } finally {
      client.release();
    }
    expect((await database.pool.query(`SELECT n, texts FROM "${schema}".t ORDER BY n`)).rows).toEqual([
      { n: '1', texts: tricky },
      { n: '2', texts: tricky },
    ]);
  });
});
