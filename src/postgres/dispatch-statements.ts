import type { AttemptQuery, DeliveryQuery } from '../dispatcher/storage.js';
import { int8 } from './int8.js';
import type { Prepare } from './statement.js';

/* Columns by name, never `*`: prepared statements must keep their result shape across migrations. */
const WEBHOOK_COLUMNS = ['id', 'url', 'events', 'headers', 'status', 'secret', 'created_at', 'updated_at'];
const EVENT_COLUMNS = ['id', 'type', 'payload', 'correlation_id', 'test', 'created_at'];
const DELIVERY_COLUMNS = ['seq', 'id', 'event_id', 'event_type', 'webhook_id', 'correlation_id', 'status', 'attempt_count',
  'automatic_attempt_count', 'next_attempt_at', 'lease_owner', 'lease_until', 'test', 'created_at', 'updated_at'];
const ATTEMPT_COLUMNS = ['seq', 'id', 'delivery_id', 'webhook_id', 'url', 'event_id', 'event_type', 'attempt_number', 'attempted_at',
  'response_status', 'response_time_ms', 'receiver_ip', 'correlation_id', 'response_body', 'response_body_truncated', 'error_kind',
  'error_message', 'manual', 'test'];

const columns = (names: readonly string[], alias?: string): string => names.map((name) => (alias ? `${alias}.${name}` : name)).join(', ');

/** The dispatch storage's statements, with table names qualified by the (quoted) schema. */
export function dispatchStatements(schema: string, prepare: Prepare) {
  const webhooks = `${schema}.dispatch_webhooks`;
  const events = `${schema}.dispatch_events`;
  const deliveries = `${schema}.dispatch_deliveries`;
  const attempts = `${schema}.dispatch_attempts`;
  const jobColumns = 'e.payload, e.test AS event_test, e.created_at AS event_created_at, w.url, w.secret, w.headers';
  const attemptColumns = `${columns(ATTEMPT_COLUMNS, 'a')}, e.payload AS request_payload`;
  return {
    insertWebhook: prepare(`INSERT INTO ${webhooks} (${columns(WEBHOOK_COLUMNS)}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`),
    getWebhook: prepare(`SELECT ${columns(WEBHOOK_COLUMNS)} FROM ${webhooks} WHERE id = $1 AND deleted_at IS NULL`),
    listWebhooks: prepare(`SELECT ${columns(WEBHOOK_COLUMNS)} FROM ${webhooks} WHERE deleted_at IS NULL ORDER BY created_at, seq`),
    // One statement; a field given as NULL keeps its value.
    updateWebhook: prepare(`UPDATE ${webhooks} SET url = COALESCE($2, url), events = COALESCE($3::json, events),
        headers = COALESCE($4::json, headers), status = COALESCE($5, status), secret = COALESCE($6, secret), updated_at = $7
      WHERE id = $1 AND deleted_at IS NULL RETURNING ${columns(WEBHOOK_COLUMNS)}`),
    // After a status change, in the same transaction but a statement of its own, so that it sees
    // the deliveries of an insertEvent it waited for (see insertEvent's lock).
    syncWebhookActive: prepare(`UPDATE ${deliveries} SET webhook_active = $2 WHERE webhook_id = $1 AND status = 'retrying'`),
    deleteWebhook: prepare(`UPDATE ${webhooks} SET deleted_at = $2 WHERE id = $1 AND deleted_at IS NULL RETURNING id`),
    endDeliveriesOfWebhook: prepare(`UPDATE ${deliveries}
      SET status = 'finally_failed', next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL, updated_at = $2
      WHERE webhook_id = $1 AND status = 'retrying'`),
    // The event and its deliveries in one statement. ON CONFLICT DO NOTHING: an id stored before
    // (also by a concurrent emit) inserts nothing at all. Deliveries go only to webhooks that still
    // exist, with their status at this moment. FOR SHARE conflicts with the row lock an update or
    // delete of the webhook takes, so the two are serialised: no delivery is inserted with a
    // status that has just changed, or for a webhook that has just been deleted.
    insertEvent: prepare(`WITH event AS (
        INSERT INTO ${events} (${columns(EVENT_COLUMNS)})
        VALUES ($1, $2, $3, $4, $5, $6)
        ON CONFLICT (id) DO NOTHING
        RETURNING id
      ), targets AS (
        SELECT w.id, w.status FROM ${webhooks} w
        WHERE w.id = ANY($7::text[]) AND w.deleted_at IS NULL AND EXISTS (SELECT 1 FROM event)
        FOR SHARE
      ), inserted AS (
        INSERT INTO ${deliveries} (id, event_id, webhook_id, event_type, correlation_id, status, webhook_active,
          next_attempt_at, lease_owner, lease_until, test, created_at, updated_at)
        SELECT n.id, $1, n.webhook_id, $2, $4, 'retrying', t.status = 'active', n.next_attempt_at, n.lease_owner, n.lease_until, $5, $6, $6
        FROM unnest($8::text[], $7::text[], $9::bigint[], $10::text[], $11::bigint[])
          AS n (id, webhook_id, next_attempt_at, lease_owner, lease_until)
        JOIN targets t ON t.id = n.webhook_id
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM event) AS events, (SELECT count(*) FROM inserted) AS deliveries`),
    getEvent: prepare(`SELECT ${columns(EVENT_COLUMNS)} FROM ${events} WHERE id = $1`),
    // The queue. One statement finds the earliest due deliveries, skips any another worker has
    // locked this instant (SKIP LOCKED), and writes the lease. next_attempt_at becomes the lease's
    // end, so a lease whose worker died is due again by the same index, with no sweeper. A row
    // another worker leased since this statement's snapshot is re-checked after locking and
    // dropped: it is no longer due. No join: the partial index is read in order and the scan
    // stops at LIMIT (joined to the webhooks, a fresh table without statistics got a plan that
    // read and sorted every pending delivery on each claim).
    claimDue: prepare(`WITH due AS (
        SELECT d.seq, d.next_attempt_at AS due_at
        FROM ${deliveries} d
        WHERE d.status = 'retrying' AND d.webhook_active AND d.next_attempt_at <= $1
        ORDER BY d.next_attempt_at
        LIMIT $2
        FOR UPDATE OF d SKIP LOCKED
      ), leased AS (
        UPDATE ${deliveries} d SET lease_owner = $3, lease_until = $4, next_attempt_at = $4, updated_at = $1
        FROM due WHERE d.seq = due.seq
        RETURNING ${columns(DELIVERY_COLUMNS, 'd')}, due.due_at
      )
      SELECT ${columns(DELIVERY_COLUMNS, 'l')}, ${jobColumns}
      FROM leased l
      JOIN ${events} e ON e.id = l.event_id
      JOIN ${webhooks} w ON w.id = l.webhook_id
      ORDER BY l.due_at, l.seq`),
    // Only what a claim could take: a disabled webhook's overdue delivery does not wake the worker.
    nextDue: prepare(`SELECT next_attempt_at FROM ${deliveries}
      WHERE status = 'retrying' AND webhook_active AND next_attempt_at IS NOT NULL ORDER BY next_attempt_at LIMIT 1`),
    jobById: prepare(`SELECT ${columns(DELIVERY_COLUMNS, 'd')}, ${jobColumns}
      FROM ${deliveries} d
      JOIN ${events} e ON e.id = d.event_id
      JOIN ${webhooks} w ON w.id = d.webhook_id
      WHERE d.id = $1`),
    getDelivery: prepare(`SELECT ${columns(DELIVERY_COLUMNS)} FROM ${deliveries} WHERE id = $1`),
    lockDeliveries: prepare(`SELECT ${columns(DELIVERY_COLUMNS)} FROM ${deliveries} WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`),
    // A batch of attempt rows (numbered by the caller, inserted in batch order so that seq follows
    // attempt_number) and each delivery's final state: one statement inside the batch's transaction.
    recordAttempts: prepare(`WITH attempt AS (
        INSERT INTO ${attempts} (${columns(ATTEMPT_COLUMNS.slice(1))})
        SELECT ${columns(ATTEMPT_COLUMNS.slice(1))}
        FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::integer[], $8::bigint[],
          $9::integer[], $10::integer[], $11::text[], $12::text[], $13::text[], $14::boolean[], $15::text[], $16::text[],
          $17::boolean[], $18::boolean[]) WITH ORDINALITY AS a (${columns(ATTEMPT_COLUMNS.slice(1))}, position)
        ORDER BY position
      )
      UPDATE ${deliveries} d SET status = s.status, attempt_count = s.attempt_count, automatic_attempt_count = s.automatic_attempt_count,
        next_attempt_at = s.next_attempt_at, lease_owner = s.lease_owner, lease_until = s.lease_until, updated_at = s.updated_at
      FROM unnest($19::text[], $20::text[], $21::integer[], $22::integer[], $23::bigint[], $24::text[], $25::bigint[], $26::bigint[])
        AS s (id, status, attempt_count, automatic_attempt_count, next_attempt_at, lease_owner, lease_until, updated_at)
      WHERE d.id = s.id`),
    attemptsOfDelivery: prepare(`SELECT ${attemptColumns} FROM ${attempts} a
      JOIN ${events} e ON e.id = a.event_id WHERE a.delivery_id = $1 ORDER BY a.seq`),
    // Built per filter combination, so sent unnamed.
    listDeliveries: (where: string, limit: string, offset: string) =>
      `SELECT ${columns(DELIVERY_COLUMNS, 'd')} FROM ${deliveries} d ${where} ORDER BY d.seq DESC LIMIT ${limit} OFFSET ${offset}`,
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
