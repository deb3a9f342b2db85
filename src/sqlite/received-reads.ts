import { rowMapping } from '../ports/fields.js';
import { INBOX_COLUMNS, INBOX_FIELDS, toInboxEvent } from '../ports/inbox-rows.js';
import { mergeBucketCounts, type BucketCount } from '../ports/buckets.js';
import { type ReceivedBucketQuery, type InboxCountQuery, type InboxPageQuery, type ReceivedOutcome, type ReceivedReads } from '../ports/received-reads.js';
import { asPromise } from './as-promise.js';
import { SQLITE_CODECS } from './codecs.js';
import type { SqliteConnection } from './driver.js';

const inboxRows = rowMapping(INBOX_FIELDS, SQLITE_CODECS);
type Row = Record<string, unknown>;

const INBOX_WHERE = `(@status IS NULL OR status = @status) AND (@type IS NULL OR event_type = @type) AND (@stale IS NULL OR stale = @stale)
  AND (@after IS NULL OR received_at >= @after) AND (@before IS NULL OR received_at < @before)`;

/** Each table by its time of first receipt. The driver may bind numbers as REAL, hence the casts (times are after `from`: truncation is floor). */
const BUCKETS = `
  SELECT CAST((first_seen_at - @from) / @size AS INTEGER) AS bucket,
    CASE WHEN state = 'completed' THEN 'handled' WHEN lease_until <= @now THEN 'failed' ELSE 'pending' END AS outcome, COUNT(*) AS count
  FROM acct_webhook_events WHERE first_seen_at >= @from AND first_seen_at < @to GROUP BY 1, 2
  UNION ALL
  SELECT CAST((received_at - @from) / @size AS INTEGER),
    CASE status WHEN 'done' THEN CASE WHEN stale = 1 THEN 'stale' ELSE 'handled' END WHEN 'dead' THEN 'failed' ELSE 'pending' END, COUNT(*)
  FROM acct_webhook_inbox WHERE received_at >= @from AND received_at < @to GROUP BY 1, 2
  UNION ALL
  SELECT CAST((first_received_at - @from) / @size AS INTEGER), 'quarantined', COUNT(*)
  FROM acct_webhook_quarantine WHERE first_received_at >= @from AND first_received_at < @to GROUP BY 1`;

const filterValues = (query: InboxCountQuery) => ({
  status: query.status ?? null,
  type: query.type ?? null,
  stale: query.stale === undefined ? null : query.stale ? 1 : 0,
  after: query.received_after ?? null,
  before: query.received_before ?? null,
});

/** The receiving side's reads on a SQLite store's file. */
export function sqliteReceivedReads(db: SqliteConnection): ReceivedReads {
  const sql = {
    page: db.prepare<Record<string, unknown>, Row>(`SELECT ${INBOX_COLUMNS} FROM acct_webhook_inbox WHERE ${INBOX_WHERE}
      ORDER BY received_at DESC, event_id LIMIT @limit OFFSET @offset`),
    count: db.prepare<Record<string, unknown>, { count: number }>(`SELECT COUNT(*) AS count FROM acct_webhook_inbox WHERE ${INBOX_WHERE}`),
    quarantined: db.prepare<[], { count: number }>('SELECT COUNT(*) AS count FROM acct_webhook_quarantine'),
    buckets: db.prepare<ReceivedBucketQuery, BucketCount<ReceivedOutcome>>(BUCKETS),
  };
  return {
    inboxPage: (query: InboxPageQuery) =>
      asPromise(() => sql.page.all({ ...filterValues(query), limit: query.limit, offset: query.offset }).map((row) => toInboxEvent(inboxRows.read(row)))),
    inboxCount: (query) => asPromise(() => sql.count.get(filterValues(query))?.count ?? 0),
    quarantineCount: () => asPromise(() => sql.quarantined.get()?.count ?? 0),
    receivedBuckets: (query) => asPromise(() => mergeBucketCounts(sql.buckets.all({ from: query.from, to: query.to, size: query.size, now: query.now }))),
  };
}
