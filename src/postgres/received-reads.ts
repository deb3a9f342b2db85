import { rowMapping } from '../ports/fields.js';
import { INBOX_COLUMNS, INBOX_FIELDS, toInboxEvent } from '../ports/inbox-rows.js';
import { mergeBucketCounts, type BucketCount } from '../ports/buckets.js';
import { type InboxCountQuery, type ReceivedOutcome, type ReceivedReads } from '../ports/received-reads.js';
import { POSTGRES_CODECS } from './codecs.js';
import { int8 } from './int8.js';
import type { PostgresQueryable } from './pool.js';
import { run, type Prepare, type Statement } from './statement.js';

const inboxRows = rowMapping(INBOX_FIELDS, POSTGRES_CODECS);
type Row = Record<string, unknown>;

const INBOX_WHERE = `($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR event_type = $2) AND ($3::boolean IS NULL OR stale = $3)
  AND ($4::bigint IS NULL OR received_at >= $4) AND ($5::bigint IS NULL OR received_at < $5)`;

const filterValues = (query: InboxCountQuery) => [
  query.status ?? null,
  query.type ?? null,
  query.stale ?? null,
  query.received_after === undefined ? null : int8(query.received_after, 'received_after'),
  query.received_before === undefined ? null : int8(query.received_before, 'received_before'),
];

/** The receiving side's reads on a PostgreSQL store's schema. */
export function postgresReceivedReads(pool: PostgresQueryable, schema: string, { ready, prepare }: { ready: () => Promise<void>; prepare: Prepare }): ReceivedReads {
  const inbox = `${schema}.acct_webhook_inbox`;
  // Each table by its time of first receipt: the range walks that column's index.
  const sql = {
    page: prepare(`SELECT ${INBOX_COLUMNS} FROM ${inbox} WHERE ${INBOX_WHERE} ORDER BY received_at DESC, event_id LIMIT $6 OFFSET $7`),
    count: prepare(`SELECT COUNT(*)::int AS count FROM ${inbox} WHERE ${INBOX_WHERE}`),
    quarantined: prepare(`SELECT COUNT(*)::int AS count FROM ${schema}.acct_webhook_quarantine`),
    buckets: prepare(`
      SELECT ((first_seen_at - $1) / $3)::int AS bucket,
        CASE WHEN state = 'completed' THEN 'handled' WHEN lease_until <= $4 THEN 'failed' ELSE 'pending' END AS outcome, COUNT(*)::int AS count
      FROM ${schema}.acct_webhook_events WHERE first_seen_at >= $1 AND first_seen_at < $2 GROUP BY 1, 2
      UNION ALL
      SELECT ((received_at - $1) / $3)::int,
        CASE status WHEN 'done' THEN CASE WHEN stale THEN 'stale' ELSE 'handled' END WHEN 'dead' THEN 'failed' ELSE 'pending' END, COUNT(*)::int
      FROM ${inbox} WHERE received_at >= $1 AND received_at < $2 GROUP BY 1, 2
      UNION ALL
      SELECT ((first_received_at - $1) / $3)::int, 'quarantined', COUNT(*)::int
      FROM ${schema}.acct_webhook_quarantine WHERE first_received_at >= $1 AND first_received_at < $2 GROUP BY 1`),
  };
  const query = async <T>(statement: Statement, values: unknown[]): Promise<T[]> => {
    await ready();
    return (await run(pool, statement, values)).rows as T[];
  };
  return {
    inboxPage: async (page) => (await query<Row>(sql.page, [...filterValues(page), page.limit, page.offset])).map((row) => toInboxEvent(inboxRows.read(row))),
    inboxCount: async (filter) => (await query<{ count: number }>(sql.count, filterValues(filter)))[0]?.count ?? 0,
    quarantineCount: async () => (await query<{ count: number }>(sql.quarantined, []))[0]?.count ?? 0,
    receivedBuckets: async ({ from, to, size, now }) =>
      mergeBucketCounts(await query<BucketCount<ReceivedOutcome>>(sql.buckets, [int8(from, 'from'), int8(to, 'to'), int8(size, 'size'), int8(now, 'now')])),
  };
}
