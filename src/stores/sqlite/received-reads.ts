import { rowMapping } from '../../ports/fields.js';
import { INBOX_COLUMNS, INBOX_FIELDS, toInboxEvent } from '../../ports/inbox-rows.js';
import { type BucketCount } from '../../ports/buckets.js';
import { type ReceivedBucketQuery, type InboxCountQuery, type InboxPageQuery, type ReceivedOutcome, type ReceivedReads } from '../../ports/received-reads.js';
import { asPromise } from './as-promise.js';
import { SQLITE_CODECS } from './codecs.js';
import type { PreparedStatement, SqliteConnection } from './drivers.js';
import { bucketRows, inboxConditions, isEmpty, type BucketTotals } from '../../ports/received-queries.js';

const inboxRows = rowMapping(INBOX_FIELDS, SQLITE_CODECS);
type Row = Record<string, unknown>;

/**
 * Counts per bucket, one bucket after the other (a recursive list of the buckets' bounds), each
 * outcome counted by its own range on an index that holds the outcome's columns: no row is read
 * from a table and nothing is sorted. A GROUP BY over the range sorted every row of it in a
 * temporary b-tree: 7 days of 100 000 events took 5 times as long (bench/history.md).
 * The driver may bind numbers as REAL, hence the casts.
 */
const BUCKETS = `
  WITH RECURSIVE b(n, lo, hi) AS (
    SELECT 0, CAST(@from AS INTEGER), MIN(CAST(@from AS INTEGER) + CAST(@size AS INTEGER), CAST(@to AS INTEGER))
    UNION ALL SELECT n + 1, hi, MIN(hi + CAST(@size AS INTEGER), CAST(@to AS INTEGER)) FROM b WHERE hi < CAST(@to AS INTEGER))
  SELECT n AS bucket,
    (SELECT COUNT(*) FROM acct_webhook_events WHERE state = 'completed' AND first_seen_at >= lo AND first_seen_at < hi)
      + (SELECT COUNT(*) FROM acct_webhook_inbox WHERE status = 'done' AND received_at >= lo AND received_at < hi AND stale = 0) AS handled,
    (SELECT COUNT(*) FROM acct_webhook_inbox WHERE status = 'done' AND received_at >= lo AND received_at < hi AND stale = 1) AS stale,
    (SELECT COUNT(*) FROM acct_webhook_quarantine WHERE first_received_at >= lo AND first_received_at < hi) AS quarantined,
    (SELECT COUNT(*) FROM acct_webhook_events WHERE state = 'processing' AND first_seen_at >= lo AND first_seen_at < hi AND lease_until <= @now)
      + (SELECT COUNT(*) FROM acct_webhook_inbox WHERE status = 'dead' AND received_at >= lo AND received_at < hi) AS failed,
    (SELECT COUNT(*) FROM acct_webhook_events WHERE state = 'processing' AND first_seen_at >= lo AND first_seen_at < hi AND lease_until > @now)
      + (SELECT COUNT(*) FROM acct_webhook_inbox WHERE status IN ('pending', 'processing') AND received_at >= lo AND received_at < hi) AS pending
  FROM b WHERE lo < hi`;

/** The named parameters of the filters given. */
const filterValues = (query: InboxCountQuery): Record<string, unknown> => {
  const values: Record<string, unknown> = {};
  if (query.status !== undefined) values.status = query.status;
  if (query.type !== undefined) values.type = query.type;
  if (query.stale !== undefined) values.stale = query.stale ? 1 : 0;
  if (query.received_after !== undefined) values.received_after = query.received_after;
  if (query.received_before !== undefined) values.received_before = query.received_before;
  return values;
};

/** The receiving side's reads on a SQLite store's file. */
export function sqliteReceivedReads(db: SqliteConnection): ReceivedReads {
  const quarantined = db.prepare<[], { count: number }>('SELECT COUNT(*) AS count FROM acct_webhook_quarantine');
  const buckets = db.prepare<Record<string, unknown>, BucketTotals>(BUCKETS);
  // One statement per combination of filters given (at most 32 of each): a condition written as
  // "(@status IS NULL OR status = @status)" keeps SQLite from using an index on the column.
  const statements = new Map<string, PreparedStatement<[Record<string, unknown>], Row>>();
  const cached = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare<[Record<string, unknown>], Row>(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  const where = (query: InboxCountQuery) => {
    const conditions = inboxConditions(query, (name) => `@${name}`);
    return conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
  };
  return {
    inboxPage: (query: InboxPageQuery) =>
      asPromise(() =>
        cached(`SELECT ${INBOX_COLUMNS} FROM acct_webhook_inbox ${where(query)} ORDER BY received_at DESC, event_id LIMIT @limit OFFSET @offset`)
          .all({ ...filterValues(query), limit: query.limit, offset: query.offset })
          .map((row) => toInboxEvent(inboxRows.read(row))),
      ),
    inboxCount: (query) => asPromise(() => Number(cached(`SELECT COUNT(*) AS count FROM acct_webhook_inbox ${where(query)}`).get(filterValues(query))?.count ?? 0)),
    quarantineCount: () => asPromise(() => quarantined.get()?.count ?? 0),
    receivedBuckets: (query: ReceivedBucketQuery): Promise<BucketCount<ReceivedOutcome>[]> =>
      asPromise(() => (isEmpty(query) ? [] : bucketRows(buckets.all({ from: query.from, to: query.to, size: query.size, now: query.now })))),
  };
}
