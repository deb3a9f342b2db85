import { DELIVERY_STATE_FIELDS } from '../../ports/delivery-fields.js';
import type { AttemptQuery, DeliveryQuery } from '../../ports/dispatch-store.js';
import type { ClaimSubject } from '../../ports/claim-plan.js';
import type { WebhookHealth } from '../../ports/dispatch-store.js';
import { HEALTH_FIELDS } from '../../ports/webhook-fields.js';
import { attemptRows, deliveryRows, EVENT_COLUMNS, JOB_COLUMNS, WEBHOOK_COLUMNS, webhookRows, type EventRow, type JobRow } from './dispatch-rows.js';

/** A registration's columns as better-sqlite3 returns them. */
type WebhookRow = Record<string, unknown>;
import type { PreparedStatement as Statement, SqliteConnection } from './drivers.js';

const assignments = (columns: readonly string[]): string => columns.map((column) => `${column} = @${column}`).join(', ');

const qualified = (columns: readonly string[], alias: string): string => columns.map((column) => `${alias}.${column}`).join(', ');
const named = (columns: readonly string[]): string => columns.map((column) => `@${column}`).join(', ');

const DELIVERY_COLUMNS = qualified(deliveryRows.columns, 'd');
/** An attempt's columns, and the body it sent from its event (stored once per event). */
export const ATTEMPT_SELECT = `${qualified(attemptRows.columns, 'a')}, e.payload AS request_payload`;
const JOB_SELECT = `SELECT ${DELIVERY_COLUMNS}, ${JOB_COLUMNS}
  FROM dispatch_deliveries d
  JOIN dispatch_events e ON e.id = d.event_id
  JOIN dispatch_webhooks w ON w.id = d.webhook_id`;

/**
 * One registration's queue: what a claim can take of it, earliest first (the partial index
 * dispatch_deliveries_queue). The limit is `? + 0`, not a bare `?`: SQLite plans with a bound
 * LIMIT's value and so prepares the statement again whenever a new one is bound — every claim
 * (measured: 17.5 → 10.2 µs a call; src/stores/sqlite/inbox.ts says the same of the inbox's claim).
 */
export const DUE_OF_WEBHOOK_SQL = `SELECT seq, webhook_id, next_attempt_at FROM dispatch_deliveries
  WHERE webhook_id = ? AND status = 'retrying' AND webhook_active = 1 AND next_attempt_at <= ?
  ORDER BY next_attempt_at, seq LIMIT ? + 0`;
/** The earliest due time of the whole queue (the partial index dispatch_deliveries_due). */
export const NEXT_DUE_SQL = `SELECT next_attempt_at FROM dispatch_deliveries
  WHERE status = 'retrying' AND webhook_active = 1 AND next_attempt_at IS NOT NULL
  ORDER BY next_attempt_at LIMIT 1`;

/**
 * The pending deliveries by state for metrics, read from the partial index of pending ones
 * (dispatch_deliveries_pending): in flight (a live lease), paused (a disabled webhook), due and
 * scheduled; with the earliest due time of the due ones.
 */
const QUEUE_COUNTS_SQL = `SELECT state, COUNT(*) AS n, MIN(CASE WHEN state = 'due' THEN next_attempt_at END) AS oldest FROM (
    SELECT CASE
        WHEN lease_owner IS NOT NULL AND lease_until > @now THEN 'in_flight'
        WHEN webhook_active = 0 THEN 'paused'
        WHEN next_attempt_at <= @now THEN 'due'
        ELSE 'scheduled'
      END AS state, next_attempt_at
    FROM dispatch_deliveries WHERE status = 'retrying'
  ) GROUP BY state`;

type Row = Record<string, unknown>;
type Named = [Record<string, unknown>];

/** The dispatch store's fixed statements (named here: better-sqlite3's own type cannot be named in declarations). */
export interface DispatchStatements {
  insertWebhook: Statement<Named>;
  getWebhook: Statement<[string], WebhookRow>;
  listWebhooks: Statement<[], WebhookRow>;
  updateWebhook: Statement<Named>;
  syncWebhookActive: Statement<[number, string]>;
  deleteWebhook: Statement<[number, string]>;
  endDeliveriesOfWebhook: Statement<[number, string]>;
  getEvent: Statement<[string], EventRow>;
  insertEvent: Statement<Named>;
  insertDelivery: Statement<Named>;
  claimSubjects: Statement<[number], ClaimSubject>;
  dueOfWebhook: Statement<[string, number, number], { seq: number; webhook_id: string; next_attempt_at: number }>;
  setRateTat: Statement<[number, string]>;
  setHealth: Statement<Named>;
  getWebhookHealth: Statement<[string], WebhookHealth>;
  insertSkipped: Statement<Named>;
  listSkipped: Statement<[string], { event_id: string }>;
  insertReplayed: Statement<Named>;
  forgetSkipped: Statement<[string, string]>;
  insertReplay: Statement<Named>;
  activity: Statement<[number], { webhook_id: string; in_flight: number; skipped_events: number }>;
  queueCounts: Statement<[{ now: number }], { state: string; n: number; oldest: number | null }>;
  lease: Statement<Named>;
  nextDue: Statement<[], { next_attempt_at: number }>;
  jobBySeq: Statement<[number], JobRow>;
  jobById: Statement<[string], JobRow>;
  getDelivery: Statement<[string], Row>;
  setDeliveryState: Statement<Named>;
  insertAttempt: Statement<Named>;
  attemptsOfDelivery: Statement<[string], Row>;
}

/** The dispatch store's fixed statements, prepared once per connection. */
export function prepareStatements(db: SqliteConnection): DispatchStatements {
  return {
    insertWebhook: db.prepare(`INSERT INTO dispatch_webhooks (${WEBHOOK_COLUMNS}) VALUES (${named(webhookRows.columns)})`),
    getWebhook: db.prepare<[string], WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM dispatch_webhooks WHERE id = ? AND deleted_at IS NULL`),
    listWebhooks: db.prepare<[], WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM dispatch_webhooks WHERE deleted_at IS NULL ORDER BY created_at, rowid`),
    updateWebhook: db.prepare(`UPDATE dispatch_webhooks SET ${assignments(webhookRows.columns.filter((field) => field !== 'id'))} WHERE id = @id`),
    syncWebhookActive: db.prepare<[number, string]>(`UPDATE dispatch_deliveries SET webhook_active = ? WHERE webhook_id = ? AND status = 'retrying'`),
    deleteWebhook: db.prepare<[number, string]>('UPDATE dispatch_webhooks SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL'),
    endDeliveriesOfWebhook: db.prepare<[number, string]>(`UPDATE dispatch_deliveries
      SET status = 'finally_failed', next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL, updated_at = ?
      WHERE webhook_id = ? AND status = 'retrying'`),
    getEvent: db.prepare<[string], EventRow>(`SELECT ${EVENT_COLUMNS} FROM dispatch_events WHERE id = ?`),
    // With the business, for an erase by business (the payload's business_id).
    // Its feed position after every other: writers are serialised (IMMEDIATE), so positions only grow.
    insertEvent: db.prepare(`INSERT INTO dispatch_events (${EVENT_COLUMNS}, business_id, seq)
      VALUES (@id, @type, @payload, @correlation_id, @test, @created_at, @business_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM dispatch_events))`),
    // Only to a webhook that still exists, with its status at this moment.
    insertDelivery: db.prepare(`INSERT INTO dispatch_deliveries (id, event_id, webhook_id, event_type, correlation_id, status,
        webhook_active, next_attempt_at, lease_owner, lease_until, test, created_at, updated_at)
      SELECT @id, @event_id, @webhook_id, @event_type, @correlation_id, 'retrying', w.status = 'active', @next_attempt_at,
        @lease_owner, @lease_until, @test, @now, @now
      FROM dispatch_webhooks w WHERE w.id = @webhook_id AND w.deleted_at IS NULL`),
    // The registrations a claim may take from, with their attempts in flight (live leases, in
    // every process), read from the partial index dispatch_deliveries_leased alone: a lease is
    // only ever on a pending delivery (delivering, failing finally or deleting clears it).
    claimSubjects: db.prepare<[number], ClaimSubject>(`SELECT w.id, w.failure_streak, w.delivered_streak, w.rate_limit, w.rate_tat, COALESCE(l.n, 0) AS in_flight
      FROM dispatch_webhooks w
      LEFT JOIN (SELECT webhook_id, COUNT(*) AS n FROM dispatch_deliveries
        WHERE lease_owner IS NOT NULL AND lease_until > ? GROUP BY webhook_id) l ON l.webhook_id = w.id
      WHERE w.status = 'active' AND w.deleted_at IS NULL`),
    dueOfWebhook: db.prepare<[string, number, number], { seq: number; webhook_id: string; next_attempt_at: number }>(DUE_OF_WEBHOOK_SQL),
    setRateTat: db.prepare<[number, string]>('UPDATE dispatch_webhooks SET rate_tat = ? WHERE id = ?'),
    setHealth: db.prepare(`UPDATE dispatch_webhooks SET ${assignments(HEALTH_FIELDS)} WHERE id = @id`),
    getWebhookHealth: db.prepare<[string], WebhookHealth>(`SELECT ${HEALTH_FIELDS.join(', ')} FROM dispatch_webhooks WHERE id = ?`),
    insertSkipped: db.prepare(`INSERT OR IGNORE INTO dispatch_skipped (webhook_id, event_id, skipped_at)
      SELECT w.id, @event_id, @now FROM dispatch_webhooks w WHERE w.id = @webhook_id AND w.deleted_at IS NULL`),
    listSkipped: db.prepare<[string], { event_id: string }>('SELECT event_id FROM dispatch_skipped WHERE webhook_id = ? ORDER BY skipped_at, event_id'),
    // A replayed event becomes a delivery like any other; an event the webhook has a delivery of already is left alone.
    insertReplayed: db.prepare(`INSERT OR IGNORE INTO dispatch_deliveries (id, event_id, webhook_id, event_type, correlation_id, status,
        webhook_active, next_attempt_at, test, created_at, updated_at)
      SELECT @id, e.id, w.id, e.type, e.correlation_id, 'retrying', w.status = 'active', @next_attempt_at, e.test, @now, @now
      FROM dispatch_events e JOIN dispatch_webhooks w ON w.id = @webhook_id WHERE e.id = @event_id`),
    forgetSkipped: db.prepare<[string, string]>('DELETE FROM dispatch_skipped WHERE webhook_id = ? AND event_id = ?'),
    // Replay by time range: a new delivery marked replay, unless the event has a pending one to
    // this registration already (a first one here, by dispatch_deliveries_first; a replayed one
    // by the unique dispatch_deliveries_replay_pending, which OR IGNORE meets).
    insertReplay: db.prepare(`INSERT OR IGNORE INTO dispatch_deliveries (id, event_id, webhook_id, event_type, correlation_id, status,
        webhook_active, next_attempt_at, test, replay, created_at, updated_at)
      SELECT @id, e.id, w.id, e.type, e.correlation_id, 'retrying', w.status = 'active', @next_attempt_at, e.test, 1, @now, @now
      FROM dispatch_events e JOIN dispatch_webhooks w ON w.id = @webhook_id AND w.deleted_at IS NULL
      WHERE e.id = @event_id AND NOT EXISTS (SELECT 1 FROM dispatch_deliveries p
        WHERE p.event_id = e.id AND p.webhook_id = w.id AND p.replay = 0 AND p.status = 'retrying')`),
    activity: db.prepare<[number], { webhook_id: string; in_flight: number; skipped_events: number }>(`SELECT webhook_id, SUM(in_flight) AS in_flight, SUM(skipped) AS skipped_events FROM (
        SELECT webhook_id, COUNT(*) AS in_flight, 0 AS skipped FROM dispatch_deliveries
          WHERE lease_owner IS NOT NULL AND lease_until > ? GROUP BY webhook_id
        UNION ALL
        SELECT webhook_id, 0, COUNT(*) FROM dispatch_skipped GROUP BY webhook_id
      ) GROUP BY webhook_id`),
    queueCounts: db.prepare<[{ now: number }], { state: string; n: number; oldest: number | null }>(QUEUE_COUNTS_SQL),
    // next_attempt_at becomes the lease's end: an abandoned lease is due again by the same index,
    // with no separate sweep for crashed workers.
    lease: db.prepare(`UPDATE dispatch_deliveries SET lease_owner = @owner, lease_until = @until, next_attempt_at = @until,
      updated_at = @now WHERE seq = @seq`),
    nextDue: db.prepare<[], { next_attempt_at: number }>(NEXT_DUE_SQL),
    jobBySeq: db.prepare<[number], JobRow>(`${JOB_SELECT} WHERE d.seq = ?`),
    jobById: db.prepare<[string], JobRow>(`${JOB_SELECT} WHERE d.id = ?`),
    getDelivery: db.prepare<[string], Row>(`SELECT ${DELIVERY_COLUMNS} FROM dispatch_deliveries d WHERE d.id = ?`),
    setDeliveryState: db.prepare(`UPDATE dispatch_deliveries SET ${DELIVERY_STATE_FIELDS.map((field) => `${field} = @${field}`).join(', ')}
      WHERE id = @id`),
    insertAttempt: db.prepare(`INSERT INTO dispatch_attempts (${attemptRows.columns.join(', ')}) VALUES (${named(attemptRows.columns)})`),
    attemptsOfDelivery: db.prepare<[string], Row>(`SELECT ${ATTEMPT_SELECT} FROM dispatch_attempts a
      JOIN dispatch_events e ON e.id = a.event_id WHERE a.delivery_id = ? ORDER BY a.seq`),
  };
}


/** The latest attempt's response status, 0 when it got no answer (read from dispatch_attempts_delivery). */
const LATEST_STATUS_SQL = 'SELECT coalesce(l.response_status, 0) FROM dispatch_attempts l WHERE l.delivery_id = d.id ORDER BY l.seq DESC LIMIT 1';

// Filter → SQL condition on its named parameter; a filter applies when its value is given.
const CONDITIONS: Record<keyof AttemptQuery, string> = {
  status: 'd.status = @status',
  event_types: 'd.event_type IN (SELECT value FROM json_each(@event_types))',
  webhook_id: 'd.webhook_id = @webhook_id',
  event_id: 'd.event_id = @event_id',
  correlation_id: 'd.correlation_id = @correlation_id',
  response_status_range: `(${LATEST_STATUS_SQL}) BETWEEN json_extract(@response_status_range, '$[0]') AND json_extract(@response_status_range, '$[1]')`,
  created_after: 'd.created_at >= @created_after',
  created_before: 'd.created_at < @created_before',
  attempted_after: 'a.attempted_at >= @attempted_after',
  attempted_before: 'a.attempted_at < @attempted_before',
};

/** The conditions and named parameters of the criteria given in `query`. */
export function filter(query: DeliveryQuery | AttemptQuery): { conditions: string[]; params: Record<string, unknown> } {
  const conditions: string[] = [];
  const params: Record<string, unknown> = {};
  for (const key of Object.keys(CONDITIONS) as (keyof AttemptQuery)[]) {
    const given = (query as AttemptQuery)[key];
    if (given === undefined) continue;
    conditions.push(CONDITIONS[key]);
    params[key] = Array.isArray(given) ? JSON.stringify(given) : given;
  }
  return { conditions, params };
}

export const listDeliveriesSql = (conditions: readonly string[]): string =>
  `SELECT ${DELIVERY_COLUMNS} FROM dispatch_deliveries d ${where(conditions)} ORDER BY d.seq DESC LIMIT @limit OFFSET @offset`;

export const countDeliveriesSql = (conditions: readonly string[]): string => `SELECT count(*) AS count FROM dispatch_deliveries d ${where(conditions)}`;

export const exportAttemptsSql = (conditions: readonly string[]): string => `SELECT ${ATTEMPT_SELECT}, a.seq, d.status AS delivery_status
  FROM dispatch_attempts a
  JOIN dispatch_events e ON e.id = a.event_id
  JOIN dispatch_deliveries d ON d.id = a.delivery_id
  ${where(['a.seq > @cursor', ...conditions])} ORDER BY a.seq LIMIT @limit`;

function where(conditions: readonly string[]): string {
  return conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
}
