import { randomUUID } from 'node:crypto';
import type { ClaimedInboxEvent, EnqueueResult, InboxCompletion, InboxFailure, InboxFilter, InboxInput, InboxStats, InboxStore } from '../../ports/inbox.js';
import { rowMapping } from '../../ports/fields.js';
import { DEFAULT_INBOX_LIST_LIMIT, insertedColumns, inboxStats, INBOX_COLUMNS, INBOX_FIELDS, toClaimed, toInboxEvent, type ClaimedColumns } from '../../ports/inbox-rows.js';
import type { AtomicEffect } from '../../ports/sqlite-database.js';
import { SQLITE_CODECS } from './codecs.js';
import { asPromise } from './as-promise.js';
import type { SqliteConnection } from './drivers.js';
import type { GroupCommit } from './group-commit.js';
import type { SqliteVersions } from './versions.js';

const inboxRows = rowMapping(INBOX_FIELDS, SQLITE_CODECS);
/** A row as better-sqlite3 returns it. */
type Row = Record<string, unknown>;
const fromRow = (row: Row) => inboxRows.read(row);

// Two separate reads, so that each walks an index and stops at the limit: with an OR, or an
// ORDER BY beyond the index, SQLite sorts every due row on every claim, and an inbox that fills
// up under a burst makes each claim slower. Pending events are read along the due index (pending
// ones only, by due time); processing ones along the status index (a few at a time).
const EXPIRED = `i.status = 'processing' AND i.lease_until <= @now`;
const DUE = `i.status = 'pending' AND i.next_attempt_at <= @now`;
// One object's events run one at a time, oldest first: an event waits while another of its
// object is running, or while an older one of its object is not finished (even one waiting for
// its retry).
const HEAD_OF_OBJECT = `(i.ordering_key IS NULL OR NOT EXISTS (
  SELECT 1 FROM acct_webhook_inbox AS j
  WHERE j.ordering_key = i.ordering_key AND j.event_id <> i.event_id AND (
    (j.status = 'processing' AND j.lease_until > @now)
    OR (j.status IN ('pending', 'processing') AND (j.event_created, j.ordering_rank, j.event_id) < (i.event_created, i.ordering_rank, i.event_id)))))`;

/**
 * A claim's limit, not a bound `LIMIT @limit`: SQLite 3.53 plans with the value of a bound
 * LIMIT, so binding a new one makes the statement prepare itself again on every claim (measured:
 * 20 µs of the claim's 30 with the object guard). `+ 0` makes it an expression it does not plan with.
 */
const LIMIT = '@limit + 0';

/** What a claim reads of a row: what the handlers need, not the whole row. */
const CLAIMED_COLUMNS = 'event_id, raw_body, headers, received_at, event_created, ordering_key, ordering_rank, attempts';

/** The inbox in the store's SQLite file; every write goes through the store's group commit. */
export function sqliteInbox(db: SqliteConnection, writes: GroupCommit, versions: SqliteVersions): InboxStore {
  const sql = {
    insert: db.prepare<Record<string, unknown>>(`INSERT OR IGNORE INTO acct_webhook_inbox
      (event_id, event_type, status, raw_body, headers, received_at, event_created, ordering_key, ordering_rank, next_attempt_at)
      SELECT @event_id, @event_type, 'pending', @raw_body, @headers, @received_at, @event_created, @ordering_key, @ordering_rank, @received_at
      WHERE NOT EXISTS (SELECT 1 FROM acct_webhook_events WHERE event_id = @event_id)`),
    requeueDead: db.prepare<[number, string]>(`UPDATE acct_webhook_inbox SET status = 'pending', attempts = 0, next_attempt_at = ?
      WHERE event_id = ? AND status = 'dead'`),
    expired: db.prepare<{ now: number; limit: number }, ClaimedColumns>(`SELECT ${CLAIMED_COLUMNS} FROM acct_webhook_inbox AS i
      WHERE ${EXPIRED} AND ${HEAD_OF_OBJECT} LIMIT ${LIMIT}`),
    due: db.prepare<{ now: number; limit: number }, ClaimedColumns>(`SELECT ${CLAIMED_COLUMNS} FROM acct_webhook_inbox AS i
      WHERE ${DUE} AND ${HEAD_OF_OBJECT} ORDER BY i.next_attempt_at LIMIT ${LIMIT}`),
    take: db.prepare<[string, number, string]>(`UPDATE acct_webhook_inbox SET status = 'processing', token = ?, lease_until = ?, attempts = attempts + 1
      WHERE event_id = ?`),
    // Two statements, so that a run that is not stale (nearly all) leaves `stale` out of the SET:
    // SQLite rewrites the entries of every index holding a column the SET names, even when its
    // value stays the same (`stale` is in the received and status indexes).
    complete: db.prepare<[number, string, string]>(`UPDATE acct_webhook_inbox
      SET status = 'done', completed_at = ?, lease_until = 0, last_error_code = NULL, last_error_message = NULL
      WHERE event_id = ? AND token = ? AND status = 'processing'`),
    completeStale: db.prepare<[number, string, string]>(`UPDATE acct_webhook_inbox
      SET status = 'done', completed_at = ?, stale = 1, lease_until = 0, last_error_code = NULL, last_error_message = NULL
      WHERE event_id = ? AND token = ? AND status = 'processing'`),
    fail: db.prepare<Record<string, unknown>>(`UPDATE acct_webhook_inbox
      SET status = @status, next_attempt_at = @retry_at, lease_until = 0, last_error_code = @code, last_error_message = @message
      WHERE event_id = @event_id AND token = @token AND status = 'processing'`),
    release: db.prepare<[string, string]>(`UPDATE acct_webhook_inbox SET status = 'pending', lease_until = 0, attempts = MAX(attempts - 1, 0)
      WHERE event_id = ? AND token = ? AND status = 'processing'`),
    // The first reads one end of the due index; the second the few processing rows.
    nextPending: db.prepare<[], { at: number | null }>(`SELECT MIN(next_attempt_at) AS at FROM acct_webhook_inbox WHERE status = 'pending'`),
    nextExpiry: db.prepare<[], { at: number | null }>(`SELECT MIN(lease_until) AS at FROM acct_webhook_inbox WHERE status = 'processing'`),
    get: db.prepare<[string], Row>(`SELECT ${INBOX_COLUMNS} FROM acct_webhook_inbox WHERE event_id = ?`),
    list: db.prepare<{ status: string | null; type: string | null; limit: number }, Row>(`SELECT ${INBOX_COLUMNS} FROM acct_webhook_inbox
      WHERE (@status IS NULL OR status = @status) AND (@type IS NULL OR event_type = @type)
      ORDER BY received_at DESC, event_id LIMIT @limit`),
    retry: db.prepare<[number, string]>(`UPDATE acct_webhook_inbox SET status = 'pending', attempts = 0, next_attempt_at = ?, token = NULL
      WHERE event_id = ? AND status IN ('dead', 'pending')`),
    purge: db.prepare<[string, number]>(`DELETE FROM acct_webhook_inbox WHERE status = ? AND received_at < ?`),
    counts: db.prepare<[], { status: string; n: number }>(`SELECT status, COUNT(*) AS n FROM acct_webhook_inbox GROUP BY status`),
    oldestPending: db.prepare<[], { at: number | null }>(`SELECT MIN(received_at) AS at FROM acct_webhook_inbox WHERE status = 'pending'`),
  };

  function enqueue(input: InboxInput): EnqueueResult {
    const inserted = sql.insert.run(insertedColumns(input));
    if (inserted.changes === 1) return { status: 'queued' };
    return { status: 'duplicate', requeued: sql.requeueDead.run(input.receivedAt, input.eventId).changes === 1 };
  }

  function claim(now: number, leaseMs: number, limit: number): ClaimedInboxEvent[] {
    const token = randomUUID();
    const rows = sql.expired.all({ now, limit });
    if (rows.length < limit) rows.push(...sql.due.all({ now, limit: limit - rows.length }));
    const claimed: ClaimedInboxEvent[] = [];
    for (const row of rows) {
      sql.take.run(token, now + leaseMs, row.event_id);
      row.attempts += 1;
      claimed.push(toClaimed(row, token));
    }
    return claimed;
  }

  function complete(eventId: string, token: string, now: number, completion: InboxCompletion): boolean {
    if ((completion.stale ? sql.completeStale : sql.complete).run(now, eventId, token).changes !== 1) return false;
    if (completion.version) versions.record(completion.version, now);
    for (const effect of completion.effects ?? []) {
      const result: unknown = (effect as AtomicEffect)(db);
      if (result instanceof Promise) throw new TypeError('An atomic effect must be synchronous: SQLite transactions cannot await');
    }
    return true;
  }

  function stats(now: number): InboxStats {
    const counts = { pending: 0, processing: 0, done: 0, dead: 0 };
    for (const { status, n } of sql.counts.all()) counts[status as keyof typeof counts] = n;
    const oldest = sql.oldestPending.get()?.at ?? null;
    return inboxStats(counts, oldest, now);
  }

  const read = (eventId: string) => {
    const row = sql.get.get(eventId);
    return row ? toInboxEvent(fromRow(row)) : undefined;
  };

  return {
    // No savepoint of its own (one costs about as much as the insert): each of its statements is
    // undone alone by SQLite, and the second runs only when the first changed nothing.
    enqueue: (input) => writes.write(() => enqueue(input)),
    claim: (now, leaseMs, limit) => writes.write(() => claim(now, leaseMs, limit), { savepoint: true }),
    // A savepoint only when there is more than the one statement to undo with it.
    complete: (eventId, token, now, completion = {}) =>
      writes.write(() => complete(eventId, token, now, completion), { savepoint: Boolean(completion.version) || (completion.effects?.length ?? 0) > 0 }),
    fail: (eventId, token, failure: InboxFailure) =>
      writes.write(
        () =>
          sql.fail.run({
            status: failure.retryAt === null ? 'dead' : 'pending',
            retry_at: failure.retryAt ?? 0,
            code: failure.code,
            message: failure.message,
            event_id: eventId,
            token,
          }).changes === 1,
      ),
    release: (eventId, token) => writes.write(() => sql.release.run(eventId, token).changes === 1),
    nextDueAt: () => asPromise(() => earliest(sql.nextPending.get()?.at ?? null, sql.nextExpiry.get()?.at ?? null)),
    list: (filter: InboxFilter = {}) =>
      asPromise(() => sql.list.all({ status: filter.status ?? null, type: filter.type ?? null, limit: filter.limit ?? DEFAULT_INBOX_LIST_LIMIT }).map((row) => toInboxEvent(fromRow(row)))),
    get: (eventId) => asPromise(() => read(eventId)),
    retry: (eventId, now) => writes.write(() => (sql.retry.run(now, eventId).changes === 1 ? read(eventId) : undefined)),
    purge: (status, before) => writes.write(() => sql.purge.run(status, before).changes),
    stats: (now) => asPromise(() => stats(now)),
  };
}

/** The earlier of two times that may be missing. */
export function earliest(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}
