import { randomUUID } from 'node:crypto';
import type { EnqueueResult, InboxFilter, InboxInput, InboxStats, InboxStore } from '../../ports/inbox.js';
import { rowMapping } from '../../ports/fields.js';
import { DEFAULT_INBOX_LIST_LIMIT, headersColumn, inboxStats, INBOX_COLUMNS, INBOX_FIELDS, toClaimed, toInboxEvent, type InboxRow } from '../../ports/inbox-rows.js';
import { POSTGRES_CODECS } from './codecs.js';
import { int8, readNullableInt8 } from './int8.js';
import type { PostgresPool } from './pool.js';
import { completeWithEffects } from './atomic.js';
import { notifySql, postgresWakeUps } from './wake-ups.js';
import { run, type Prepare, type Statement } from './statement.js';
import { encodeNullableText, encodeText } from './text-codec.js';
import { recordVersionSql, versionValues } from './versions.js';

// As on SQLite, two reads that each walk the (status, next_attempt_at) index and stop at the limit.
const EXPIRED = `i.status = 'processing' AND i.lease_until <= $1`;
const DUE = `i.status = 'pending' AND i.next_attempt_at <= $1`;
// As on SQLite: one object's events one at a time, oldest first. Two workers that pick the same
// object's head both want the same row, and SKIP LOCKED gives it to one of them.
const HEAD_OF_OBJECT = `(i.ordering_key IS NULL OR NOT EXISTS (
  SELECT 1 FROM INBOX AS j
  WHERE j.ordering_key = i.ordering_key AND j.event_id <> i.event_id AND (
    (j.status = 'processing' AND j.lease_until > $1)
    OR (j.status IN ('pending', 'processing')
        AND (j.event_created, j.ordering_rank, j.event_id COLLATE "C") < (i.event_created, i.ordering_rank, i.event_id COLLATE "C")))))`;

interface Context {
  ready: () => Promise<void>;
  prepare: Prepare;
  /** The NOTIFY channel of the schema's inbox workers (wake-ups.ts). */
  wakeUpChannel: string;
}

/** The inbox in PostgreSQL, shared by every receiver process on the schema (SKIP LOCKED claims). */
export function postgresInbox(pool: PostgresPool, schema: string, { ready, prepare, wakeUpChannel }: Context): InboxStore {
  const inbox = `${schema}.acct_webhook_inbox`;
  const sql = {
    // Both notify the inbox workers of every process when they stored something: PostgreSQL
    // delivers the notification when the statement commits.
    insert: prepare(`WITH stored AS (INSERT INTO ${inbox}
        (event_id, event_type, status, raw_body, headers, received_at, event_created, ordering_key, ordering_rank, next_attempt_at)
      SELECT $1, $2, 'pending', $3, $4, $5, $6, $7, $8, $5
      WHERE NOT EXISTS (SELECT 1 FROM ${schema}.acct_webhook_events WHERE event_id = $1)
      ON CONFLICT (event_id) DO NOTHING RETURNING event_id)
      SELECT event_id, ${notifySql(wakeUpChannel)} AS notified FROM stored`),
    requeueDead: prepare(`WITH requeued AS (
        UPDATE ${inbox} SET status = 'pending', attempts = 0, next_attempt_at = $2 WHERE event_id = $1 AND status = 'dead' RETURNING event_id)
      SELECT event_id, ${notifySql(wakeUpChannel)} AS notified FROM requeued`),
    claim: prepare(`WITH expired AS (
        SELECT i.event_id FROM ${inbox} AS i WHERE ${EXPIRED} AND ${HEAD_OF_OBJECT.replace('INBOX', inbox)}
        LIMIT $4 FOR UPDATE SKIP LOCKED),
      due AS (
        SELECT i.event_id, i.next_attempt_at FROM ${inbox} AS i WHERE ${DUE} AND ${HEAD_OF_OBJECT.replace('INBOX', inbox)}
        ORDER BY i.next_attempt_at LIMIT $4 FOR UPDATE SKIP LOCKED),
      picked AS (
        SELECT event_id FROM (SELECT event_id, 0 AS first, 0::bigint AS at FROM expired UNION ALL SELECT event_id, 1, next_attempt_at FROM due) AS both_kinds
        ORDER BY first, at LIMIT $4)
      UPDATE ${inbox} AS t SET status = 'processing', token = $2, lease_until = $3, attempts = t.attempts + 1
      FROM picked WHERE t.event_id = picked.event_id
      RETURNING ${prefixed('t')}`),
    complete: prepare(`WITH done AS (
        UPDATE ${inbox} SET status = 'done', completed_at = $3, stale = $4, lease_until = 0, last_error_code = NULL, last_error_message = NULL
        WHERE event_id = $1 AND token = $2 AND status = 'processing' RETURNING event_id),
      kept AS (${recordVersionSql(schema, ['$5', '$6', '$7', '$8'], '$3', 'EXISTS (SELECT 1 FROM done)')})
      SELECT COUNT(*)::int AS n FROM done`),
    fail: prepare(`UPDATE ${inbox} SET status = $3, next_attempt_at = $4, lease_until = 0, last_error_code = $5, last_error_message = $6
      WHERE event_id = $1 AND token = $2 AND status = 'processing'`),
    release: prepare(`UPDATE ${inbox} SET status = 'pending', lease_until = 0, attempts = GREATEST(attempts - 1, 0)
      WHERE event_id = $1 AND token = $2 AND status = 'processing'`),
    nextDue: prepare(`SELECT LEAST(
        (SELECT MIN(next_attempt_at) FROM ${inbox} WHERE status = 'pending'),
        (SELECT MIN(lease_until) FROM ${inbox} WHERE status = 'processing')) AS at`),
    get: prepare(`SELECT ${INBOX_COLUMNS} FROM ${inbox} WHERE event_id = $1`),
    list: prepare(`SELECT ${INBOX_COLUMNS} FROM ${inbox} WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR event_type = $2)
      ORDER BY received_at DESC, event_id LIMIT $3`),
    retry: prepare(`UPDATE ${inbox} SET status = 'pending', attempts = 0, next_attempt_at = $2, token = NULL
      WHERE event_id = $1 AND status IN ('dead', 'pending') RETURNING ${INBOX_COLUMNS}`),
    purge: prepare(`DELETE FROM ${inbox} WHERE status = $1 AND received_at < $2`),
    counts: prepare(`SELECT status, COUNT(*)::int AS n FROM ${inbox} GROUP BY status`),
    oldestPending: prepare(`SELECT MIN(received_at) AS at FROM ${inbox} WHERE status = 'pending'`),
  };

  async function query(statement: Statement, values: unknown[]) {
    await ready();
    return run(pool, statement, values);
  }

  async function enqueue(input: InboxInput): Promise<EnqueueResult> {
    const eventId = encodeText(input.eventId);
    const inserted = await query(sql.insert, [
      eventId,
      input.eventType,
      input.rawBody,
      headersColumn(input),
      int8(input.receivedAt, 'receivedAt'),
      int8(input.created, 'created'),
      encodeNullableText(input.version?.key ?? null),
      input.version?.rank ?? 0,
    ]);
    if (inserted.rows.length === 1) return { status: 'queued' };
    const requeued = await query(sql.requeueDead, [eventId, int8(input.receivedAt, 'receivedAt')]);
    return { status: 'duplicate', requeued: requeued.rows.length === 1 };
  }

  async function stats(now: number): Promise<InboxStats> {
    const counts = { pending: 0, processing: 0, done: 0, dead: 0 };
    for (const { status, n } of (await query(sql.counts, [])).rows as { status: keyof typeof counts; n: number }[]) counts[status] = n;
    const [row] = (await query(sql.oldestPending, [])).rows as { at: unknown }[];
    const oldest = readNullableInt8(row?.at, 'received_at');
    return inboxStats(counts, oldest, now);
  }

  return {
    wakeUps: postgresWakeUps(pool, wakeUpChannel),
    enqueue,
    async claim(now, leaseMs, limit) {
      const token = randomUUID();
      const result = await query(sql.claim, [int8(now, 'now'), token, int8(now + leaseMs, 'now + leaseMs'), limit]);
      return (result.rows as RawRow[]).map((row) => toClaimed(fromRaw(row), token));
    },
    async complete(eventId, token, now, completion = {}) {
      const values = [encodeText(eventId), token, int8(now, 'now'), completion.stale ?? false, ...versionValues(completion.version)];
      const effects = completion.effects ?? [];
      if (effects.length > 0) {
        await ready();
        return completeWithEffects(pool, effects, completion.budgetMs, async (client) => ((await run(client, sql.complete, values)).rows as { n: number }[])[0]?.n === 1);
      }
      const [row] = (await query(sql.complete, values)).rows as { n: number }[];
      return row?.n === 1;
    },
    async fail(eventId, token, failure) {
      const values = [encodeText(eventId), token, failure.retryAt === null ? 'dead' : 'pending', int8(failure.retryAt ?? 0, 'retryAt'), failure.code, encodeText(failure.message)];
      return (await query(sql.fail, values)).rowCount === 1;
    },
    async release(eventId, token) {
      return (await query(sql.release, [encodeText(eventId), token])).rowCount === 1;
    },
    async nextDueAt() {
      const [row] = (await query(sql.nextDue, [])).rows as { at: unknown }[];
      return readNullableInt8(row?.at, 'next_attempt_at');
    },
    async list(filter: InboxFilter = {}) {
      const result = await query(sql.list, [filter.status ?? null, filter.type ?? null, filter.limit ?? DEFAULT_INBOX_LIST_LIMIT]);
      return (result.rows as RawRow[]).map((row) => toInboxEvent(fromRaw(row)));
    },
    async get(eventId) {
      const [row] = (await query(sql.get, [encodeText(eventId)])).rows as RawRow[];
      return row ? toInboxEvent(fromRaw(row)) : undefined;
    },
    async retry(eventId, now) {
      const [row] = (await query(sql.retry, [encodeText(eventId), int8(now, 'now')])).rows as RawRow[];
      return row ? toInboxEvent(fromRaw(row)) : undefined;
    },
    async purge(status, before) {
      return (await query(sql.purge, [status, int8(before, 'before')])).rowCount ?? 0;
    },
    stats,
  };
}

const inboxRows = rowMapping(INBOX_FIELDS, POSTGRES_CODECS);

/** A row as pg returns it. */
type RawRow = Record<string, unknown>;

function fromRaw(row: RawRow): InboxRow {
  return inboxRows.read(row);
}

function prefixed(alias: string): string {
  return INBOX_COLUMNS.split(', ')
    .map((column) => `${alias}.${column}`)
    .join(', ');
}
