import { createHash } from 'node:crypto';
import { POSTGRES_PREPARED_STATEMENTS } from './postgres-defaults.js';
import { PostgresValueError } from './errors.js';
import type { PostgresQueryable, PostgresQueryResult } from './pool.js';

/** A fixed SQL text, named when it is to be prepared on the server. */
export interface Statement {
  readonly text: string;
  readonly name?: string;
}

export type Prepare = (text: string) => Statement;

/**
 * How fixed statements are sent. The name derives from the text (which holds the schema), so one
 * name always means one text on every connection, also in a pool shared with an application:
 * pg refuses a name reused for another text. Statements that are prepared list their columns
 * (no `*`): a later migration adding a column must not change a prepared statement's result.
 */
export function statementPreparer(preparedStatements: boolean | undefined): Prepare {
  if (!(preparedStatements ?? POSTGRES_PREPARED_STATEMENTS)) return (text) => ({ text });
  return (text) => ({ text, name: `acct_webhook_${createHash('sha256').update(text).digest('hex').slice(0, 24)}` });
}

export function run(queryable: PostgresQueryable, statement: Statement, values: unknown[]): Promise<PostgresQueryResult> {
  return queryable.query({ ...statement, values });
}

/**
 * A value written into a statement's text, for statements sent with the simple protocol in the
 * round trip of their transaction's BEGIN or COMMIT (that protocol carries no parameters): NULL,
 * a boolean, a finite number, or a string as an escape string literal (backslashes and quotes
 * doubled, so it reads the same whatever `standard_conforming_strings` is). Anything else is
 * refused rather than guessed at.
 */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new PostgresValueError(`${value} cannot be written into a statement`, { value });
    return String(value);
  }
  if (typeof value === 'string') return `E'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
  throw new PostgresValueError(`A ${typeof value} cannot be written into a statement`, { type: typeof value });
}

/**
 * An array of `type` written into a statement's text (see {@link sqlLiteral}): one string literal
 * in PostgreSQL's array form, `'{"a","b",NULL}'::type[]`, which the server reads with the array's
 * input function. An `ARRAY[…]` of literals, one expression per value, cost the server twice as
 * much to parse and type (a record batch sends some 500 values: 0.38 against 0.17 ms,
 * bench/postgres-array-literals.mjs). NULL is bare; every other value is double-quoted, with `"`
 * and `\` escaped, so that it reads back exactly, spaces, braces, commas and "NULL" included.
 */
export function sqlArrayLiteral(values: readonly unknown[], type: string): string {
  return `${sqlLiteral(`{${values.map(arrayElement).join(',')}}`)}::${type}[]`;
}

/** One element of an array's text form: as {@link sqlLiteral} would write it, quoted for the array. */
function arrayElement(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  const text = typeof value === 'string' ? value : sqlLiteral(value);
  return `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

/**
 * The start of the dispatcher's claim and record transactions: BEGIN, and their prepared
 * statements run with their generic plan. PostgreSQL plans a prepared statement afresh for its
 * first five runs on a connection (and keeps doing so while that looks cheaper), and a worker's
 * claims and records are spread over every connection of its pool, so nearly every run was
 * planned anew: for a claim about 1 ms of planning beside 1 ms of execution. Their generic plans
 * are the ones a run needs anyway (each reads by key or by its registration's queue, whatever the
 * values). SET LOCAL ends with the transaction; it gives one more result after the BEGIN's.
 */
export const BEGIN_WITH_GENERIC_PLANS = 'BEGIN; SET LOCAL plan_cache_mode = force_generic_plan';

/** The named statements pg has prepared on each connection (after a successful run there). */
const preparedOn = new WeakMap<PostgresQueryable, Set<string>>();

/**
 * Runs `statement` inside a transaction and, where it can, its COMMIT in the same round trip:
 * once pg has prepared the statement on this connection, it is sent as `EXECUTE name(…); COMMIT`
 * with the simple protocol, its `values` written as literals of `types` (an array type ends in
 * `[]`), so it keeps its prepared plan. The first time on a connection, or when statements are not
 * prepared, it runs as usual and the caller commits (`committed: false`).
 */
export async function runAndCommit(client: PostgresQueryable, statement: Statement, values: readonly unknown[], types: readonly string[]): Promise<{ result: PostgresQueryResult; committed: boolean }> {
  const name = statement.name;
  if (name !== undefined && preparedOn.get(client)?.has(name)) {
    const args = values.map((value, i) => {
      const type = types[i]!;
      return type.endsWith('[]') ? sqlArrayLiteral(value as unknown[], type.slice(0, -2)) : `${sqlLiteral(value)}::${type}`;
    });
    const [result] = (await client.query(`EXECUTE ${name}(${args.join(', ')}); COMMIT`)) as unknown as PostgresQueryResult[];
    return { result: result!, committed: true };
  }
  const result = await run(client, statement, [...values]);
  if (name !== undefined) {
    const names = preparedOn.get(client) ?? new Set<string>();
    names.add(name);
    preparedOn.set(client, names);
  }
  return { result, committed: false };
}
