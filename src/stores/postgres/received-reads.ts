import { rowMapping } from '../../ports/fields.js';
import { INBOX_COLUMNS, INBOX_FIELDS, toInboxEvent } from '../../ports/inbox-rows.js';
import { bucketRows, inboxConditions, isEmpty, type BucketTotals } from '../../ports/received-queries.js';
import { type InboxCountQuery, type ReceivedReads } from '../../ports/received-reads.js';
import { POSTGRES_CODECS } from './codecs.js';
import { int8 } from './int8.js';
import type { PostgresQueryable } from './pool.js';
import { run, type Prepare, type Statement } from './statement.js';

const inboxRows = rowMapping(INBOX_FIELDS, POSTGRES_CODECS);
type Row = Record<string, unknown>;

const PARAMETER_TYPES = { status: 'text', type: 'text', stale: 'boolean', received_after: 'bigint', received_before: 'bigint' } as const;

/**
 * The conditions of the filters given, with their values: one statement per combination of
 * filters (at most 32), so that each is planned for the index that fits it; a condition written
 * as "($1 IS NULL OR status = $1)" left PostgreSQL a sequential scan and a sort of the inbox.
 */
function filterOf(query: InboxCountQuery): { where: string; values: unknown[] } {
  const values: unknown[] = [];
  const conditions = inboxConditions(query, (name, value) => {
    values.push(name === 'received_after' || name === 'received_before' ? int8(value as number, name) : value);
    return `$${values.length}::${PARAMETER_TYPES[name]}`;
  });
  return { where: conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '', values };
}

/** The receiving side's reads on a PostgreSQL store's schema. */
export function postgresReceivedReads(pool: PostgresQueryable, schema: string, { ready, prepare }: { ready: () => Promise<void>; prepare: Prepare }): ReceivedReads {
  const inbox = `${schema}.acct_webhook_inbox`;
  const events = `${schema}.acct_webhook_events`;
  const quarantine = `${schema}.acct_webhook_quarantine`;
  const count = (from: string, condition: string) => `(SELECT COUNT(*) FROM ${from} WHERE ${condition})::int`;
  const seen = 'first_seen_at >= lo AND first_seen_at < hi';
  const received = 'received_at >= lo AND received_at < hi';
  // As on SQLite (./received-reads.ts there): bucket after bucket, each outcome an index-only
  // range count on the index that holds its columns; nothing is read from the tables or sorted.
  const buckets = prepare(`
    SELECT n AS bucket,
      ${count(events, `state = 'completed' AND ${seen}`)} + ${count(inbox, `status = 'done' AND ${received} AND NOT stale`)} AS handled,
      ${count(inbox, `status = 'done' AND ${received} AND stale`)} AS stale,
      ${count(quarantine, 'first_received_at >= lo AND first_received_at < hi')} AS quarantined,
      ${count(events, `state = 'processing' AND ${seen} AND lease_until <= $4`)} + ${count(inbox, `status = 'dead' AND ${received}`)} AS failed,
      ${count(events, `state = 'processing' AND ${seen} AND lease_until > $4`)} + ${count(inbox, `status IN ('pending', 'processing') AND ${received}`)} AS pending
    FROM (SELECT n, $1::bigint + n * $3::bigint AS lo, LEAST($1::bigint + (n + 1) * $3::bigint, $2::bigint) AS hi
      FROM generate_series(0, (($2::bigint - $1::bigint + $3::bigint - 1) / $3::bigint) - 1) AS n) AS b`);
  const quarantined = prepare(`SELECT COUNT(*)::int AS count FROM ${quarantine}`);
  const query = async <T>(statement: Statement, values: unknown[]): Promise<T[]> => {
    await ready();
    return (await run(pool, statement, values)).rows as T[];
  };
  return {
    inboxPage: async (page) => {
      const { where, values } = filterOf(page);
      const text = `SELECT ${INBOX_COLUMNS} FROM ${inbox} ${where} ORDER BY received_at DESC, event_id LIMIT $${values.length + 1} OFFSET $${values.length + 2}`;
      return (await query<Row>(prepare(text), [...values, page.limit, page.offset])).map((row) => toInboxEvent(inboxRows.read(row)));
    },
    inboxCount: async (filter) => {
      const { where, values } = filterOf(filter);
      return (await query<{ count: number }>(prepare(`SELECT COUNT(*)::int AS count FROM ${inbox} ${where}`), values))[0]?.count ?? 0;
    },
    quarantineCount: async () => (await query<{ count: number }>(quarantined, []))[0]?.count ?? 0,
    receivedBuckets: async (range) =>
      isEmpty(range) ? [] : bucketRows(await query<BucketTotals>(buckets, [int8(range.from, 'from'), int8(range.to, 'to'), int8(range.size, 'size'), int8(range.now, 'now')])),
  };
}
