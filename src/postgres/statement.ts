import { createHash } from 'node:crypto';
import { POSTGRES_PREPARED_STATEMENTS } from './defaults.js';
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
 * A text array written into a statement's text, for a statement sent with the simple protocol in
 * the round trip of its BEGIN (which carries no parameters). Each element is an escape string
 * literal, backslashes and quotes doubled, so it reads the same whatever
 * `standard_conforming_strings` is.
 */
export function textArrayLiteral(values: readonly string[]): string {
  if (values.length === 0) return `'{}'::text[]`;
  return `ARRAY[${values.map((value) => `E'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`).join(', ')}]::text[]`;
}
