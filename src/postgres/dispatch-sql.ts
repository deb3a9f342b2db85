import type { AttemptQuery, DeliveryQuery } from '../dispatcher/storage.js';
import { int8 } from './int8.js';

/** The dispatch storage's statements, with table names qualified by the (quoted) schema. */
export function dispatchStatements(schema: string) {
  const webhooks = `${schema}.dispatch_webhooks`;
  const events = `${schema}.dispatch_events`;
  const deliveries = `${schema}.dispatch_deliveries`;
  const attempts = `${schema}.dispatch_attempts`;
  const jobColumns = 'e.payload, e.test AS event_test, e.created_at AS event_created_at, w.url, w.secret, w.headers';
  const attemptColumns = `a.seq, a.id, a.delivery_id, a.webhook_id, a.url, a.event_id, a.event_type, a.attempt_number,
    a.attempted_at, a.response_status, a.response_time_ms, a.receiver_ip, a.correlation_id, e.payload AS request_payload,
    a.response_body, a.response_body_truncated, a.error_kind, a.error_message, a.manual, a.test`;
  return {
    tables: { webhooks, events, deliveries, attempts },
    insertWebhook: `INSERT INTO ${webhooks} (id, url, events, headers, status, secret, created_at, updated_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    getWebhook: `SELECT * FROM ${webhooks} WHERE id = $1 AND deleted_at IS NULL`,
    listWebhooks: `SELECT * FROM ${webhooks} WHERE deleted_at IS NULL ORDER BY created_at, seq`,
    // One statement; a field given as NULL keeps its value.
    updateWebhook: `UPDATE ${webhooks} SET url = COALESCE($2, url), events = COALESCE($3::json, events),
        headers = COALESCE($4::json, headers), status = COALESCE($5, status), secret = COALESCE($6, secret), updated_at = $7
      WHERE id = $1 AND deleted_at IS NULL RETURNING *`,
    // FOR UPDATE (not the weaker lock a plain UPDATE takes) so that it waits for, and is waited
    // for by, an insertEvent holding FOR KEY SHARE on this webhook: no delivery slips in after
    // the pending ones were ended.
    lockWebhook: `SELECT id FROM ${webhooks} WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`,
    deleteWebhook: `UPDATE ${webhooks} SET deleted_at = $2 WHERE id = $1`,
    endDeliveriesOfWebhook: `UPDATE ${deliveries}
      SET status = 'finally_failed', next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL, updated_at = $2
      WHERE webhook_id = $1 AND status = 'retrying'`,
    // The event and its deliveries in one statement. ON CONFLICT DO NOTHING: an id stored before
    // (also by a concurrent emit) inserts nothing at all. Deliveries go only to webhooks that still
    // exist, locked against a concurrent delete.
    insertEvent: `WITH event AS (
        INSERT INTO ${events} (id, type, payload, correlation_id, test, created_at)
        VALUES ($1, $2, $3, $4, $5, $6)
        ON CONFLICT (id) DO NOTHING
        RETURNING id
      ), targets AS (
        SELECT w.id FROM ${webhooks} w
        WHERE w.id = ANY($7::text[]) AND w.deleted_at IS NULL AND EXISTS (SELECT 1 FROM event)
        FOR KEY SHARE
      ), inserted AS (
        INSERT INTO ${deliveries} (id, event_id, webhook_id, event_type, correlation_id, status,
          next_attempt_at, lease_owner, lease_until, test, created_at, updated_at)
        SELECT n.id, $1, n.webhook_id, $2, $4, 'retrying', n.next_attempt_at, n.lease_owner, n.lease_until, $5, $6, $6
        FROM unnest($8::text[], $7::text[], $9::bigint[], $10::text[], $11::bigint[])
          AS n (id, webhook_id, next_attempt_at, lease_owner, lease_until)
        JOIN targets t ON t.id = n.webhook_id
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM event) AS events, (SELECT count(*) FROM inserted) AS deliveries`,
    getEvent: `SELECT * FROM ${events} WHERE id = $1`,
    // The queue. One statement finds the earliest due deliveries, skips any another worker has
    // locked this instant (SKIP LOCKED), and writes the lease. next_attempt_at becomes the lease's
    // end, so a lease whose worker died is due again by the same index, with no sweeper. A row
    // another worker leased since this statement's snapshot is re-checked after locking and
    // dropped: it is no longer due.
    claimDue: `WITH due AS (
        SELECT d.seq, d.next_attempt_at AS due_at
        FROM ${deliveries} d
        JOIN ${webhooks} w ON w.id = d.webhook_id
        WHERE d.status = 'retrying' AND d.next_attempt_at <= $1 AND w.status = 'active' AND w.deleted_at IS NULL
        ORDER BY d.next_attempt_at
        LIMIT $2
        FOR UPDATE OF d SKIP LOCKED
      ), leased AS (
        UPDATE ${deliveries} d SET lease_owner = $3, lease_until = $4, next_attempt_at = $4, updated_at = $1
        FROM due WHERE d.seq = due.seq
        RETURNING d.*, due.due_at
      )
      SELECT l.*, ${jobColumns}
      FROM leased l
      JOIN ${events} e ON e.id = l.event_id
      JOIN ${webhooks} w ON w.id = l.webhook_id
      ORDER BY l.due_at, l.seq`,
    nextDue: `SELECT next_attempt_at FROM ${deliveries}
      WHERE status = 'retrying' AND next_attempt_at IS NOT NULL ORDER BY next_attempt_at LIMIT 1`,
    jobById: `SELECT d.*, ${jobColumns}
      FROM ${deliveries} d
      JOIN ${events} e ON e.id = d.event_id
      JOIN ${webhooks} w ON w.id = d.webhook_id
      WHERE d.id = $1`,
    getDelivery: `SELECT * FROM ${deliveries} WHERE id = $1`,
    lockDelivery: `SELECT * FROM ${deliveries} WHERE id = $1 FOR UPDATE`,
    // The attempt row and the delivery's next state, one statement inside recordAttempt's transaction.
    recordAttempt: `WITH attempt AS (
        INSERT INTO ${attempts} (id, delivery_id, webhook_id, url, event_id, event_type, attempt_number, attempted_at,
          response_status, response_time_ms, receiver_ip, correlation_id, response_body, response_body_truncated,
          error_kind, error_message, manual, test)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
      )
      UPDATE ${deliveries} SET status = $19, attempt_count = $7, automatic_attempt_count = $20, next_attempt_at = $21,
        lease_owner = $22, lease_until = $23, updated_at = $8
      WHERE id = $2`,
    attemptsOfDelivery: `SELECT ${attemptColumns} FROM ${attempts} a
      JOIN ${events} e ON e.id = a.event_id WHERE a.delivery_id = $1 ORDER BY a.seq`,
    listDeliveries: (where: string, limit: string, offset: string) =>
      `SELECT d.* FROM ${deliveries} d ${where} ORDER BY d.seq DESC LIMIT ${limit} OFFSET ${offset}`,
    exportAttempts: (where: string, limit: string) => `SELECT ${attemptColumns}, d.status AS delivery_status
      FROM ${attempts} a
      JOIN ${events} e ON e.id = a.event_id
      JOIN ${deliveries} d ON d.id = a.delivery_id
      ${where} ORDER BY a.seq LIMIT ${limit}`,
  };
}

// Filter name → SQL condition on the numbered parameter `$n`; a filter applies when its value is given.
const DELIVERY_FILTERS = {
  status: (n: string) => `d.status = ${n}`,
  type: (n: string) => `d.event_type = ${n}`,
  webhookId: (n: string) => `d.webhook_id = ${n}`,
  since: (n: string) => `d.created_at >= ${n}`,
  until: (n: string) => `d.created_at < ${n}`,
} as const;

const ATTEMPT_FILTERS = {
  status: (n: string) => `d.status = ${n}`,
  type: (n: string) => `a.event_type = ${n}`,
  webhookId: (n: string) => `a.webhook_id = ${n}`,
  since: (n: string) => `a.attempted_at >= ${n}`,
  until: (n: string) => `a.attempted_at < ${n}`,
} as const;

/** Collects parameters and hands out their `$n` placeholders in order. */
export class Parameters {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

export function deliveryWhere(query: DeliveryQuery, params: Parameters): string {
  return where(query, DELIVERY_FILTERS, params, []);
}

export function attemptWhere(query: AttemptQuery, cursor: number, params: Parameters): string {
  return where(query, ATTEMPT_FILTERS, params, [`a.seq > ${params.add(int8(cursor, 'cursor'))}`]);
}

function where(
  query: DeliveryQuery | AttemptQuery,
  filters: typeof DELIVERY_FILTERS | typeof ATTEMPT_FILTERS,
  params: Parameters,
  conditions: string[],
): string {
  for (const key of Object.keys(filters) as (keyof typeof filters)[]) {
    const value = query[key];
    if (value === undefined) continue;
    // Stored times are whole milliseconds, so `>= 1.5` and `< 1.5` mean `>= 2` and `< 2`: exact.
    conditions.push(filters[key](params.add(typeof value === 'number' ? int8(Math.ceil(value), key) : value)));
  }
  return conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
}
