import { DELIVERY_STATE_FIELDS } from '../dispatcher/delivery-fields.js';
import type { AttemptQuery, DeliveryQuery } from '../dispatcher/store.js';
import { attemptRows, deliveryRows, EVENT_COLUMNS, JOB_COLUMNS, WEBHOOK_COLUMNS, type EventRow, type JobRow, type WebhookRow } from './dispatch-rows.js';
import type { Statement } from 'better-sqlite3';
import type { SqliteConnection } from './driver.js';

const qualified = (columns: readonly string[], alias: string): string => columns.map((column) => `${alias}.${column}`).join(', ');
const named = (columns: readonly string[]): string => columns.map((column) => `@${column}`).join(', ');

const DELIVERY_COLUMNS = qualified(deliveryRows.columns, 'd');
/** An attempt's columns, and the body it sent from its event (stored once per event). */
export const ATTEMPT_SELECT = `${qualified(attemptRows.columns, 'a')}, e.payload AS request_payload`;
const JOB_SELECT = `SELECT ${DELIVERY_COLUMNS}, ${JOB_COLUMNS}
  FROM dispatch_deliveries d
  JOIN dispatch_events e ON e.id = d.event_id
  JOIN dispatch_webhooks w ON w.id = d.webhook_id`;

/** The queue: what a claim can take, earliest first. Both worker questions read the partial index dispatch_deliveries_due. */
export const DUE_DELIVERIES_SQL = `SELECT seq FROM dispatch_deliveries
  WHERE status = 'retrying' AND webhook_active = 1 AND next_attempt_at <= ?
  ORDER BY next_attempt_at LIMIT ?`;
export const NEXT_DUE_SQL = `SELECT next_attempt_at FROM dispatch_deliveries
  WHERE status = 'retrying' AND webhook_active = 1 AND next_attempt_at IS NOT NULL
  ORDER BY next_attempt_at LIMIT 1`;

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
  dueDeliveries: Statement<[number, number], { seq: number }>;
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
    insertWebhook: db.prepare(`INSERT INTO dispatch_webhooks (${WEBHOOK_COLUMNS})
      VALUES (@id, @url, @events, @headers, @status, @secret, @created_at, @updated_at)`),
    getWebhook: db.prepare<[string], WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM dispatch_webhooks WHERE id = ? AND deleted_at IS NULL`),
    listWebhooks: db.prepare<[], WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM dispatch_webhooks WHERE deleted_at IS NULL ORDER BY created_at, rowid`),
    updateWebhook: db.prepare(`UPDATE dispatch_webhooks SET url = @url, events = @events, headers = @headers, status = @status,
      secret = @secret, updated_at = @updated_at WHERE id = @id`),
    syncWebhookActive: db.prepare<[number, string]>(`UPDATE dispatch_deliveries SET webhook_active = ? WHERE webhook_id = ? AND status = 'retrying'`),
    deleteWebhook: db.prepare<[number, string]>('UPDATE dispatch_webhooks SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL'),
    endDeliveriesOfWebhook: db.prepare<[number, string]>(`UPDATE dispatch_deliveries
      SET status = 'finally_failed', next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL, updated_at = ?
      WHERE webhook_id = ? AND status = 'retrying'`),
    getEvent: db.prepare<[string], EventRow>(`SELECT ${EVENT_COLUMNS} FROM dispatch_events WHERE id = ?`),
    insertEvent: db.prepare(`INSERT INTO dispatch_events (${EVENT_COLUMNS}) VALUES (@id, @type, @payload, @correlation_id, @test, @created_at)`),
    // Only to a webhook that still exists, with its status at this moment.
    insertDelivery: db.prepare(`INSERT INTO dispatch_deliveries (id, event_id, webhook_id, event_type, correlation_id, status,
        webhook_active, next_attempt_at, lease_owner, lease_until, test, created_at, updated_at)
      SELECT @id, @event_id, @webhook_id, @event_type, @correlation_id, 'retrying', w.status = 'active', @next_attempt_at,
        @lease_owner, @lease_until, @test, @now, @now
      FROM dispatch_webhooks w WHERE w.id = @webhook_id AND w.deleted_at IS NULL`),
    dueDeliveries: db.prepare<[number, number], { seq: number }>(DUE_DELIVERIES_SQL),
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
