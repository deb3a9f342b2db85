import { ATTEMPT_FIELDS, DELIVERY_FIELDS, DELIVERY_STATE_FIELDS } from '../dispatcher/delivery-fields.js';
import type { FieldKind, Fields } from '../dispatcher/fields.js';
import type { AttemptQuery, DeliveryQuery } from '../dispatcher/store.js';
import { attemptRows, deliveryRows } from './dispatch-rows.js';
import { int8 } from './int8.js';
import type { Prepare } from './statement.js';

/* Columns by name, never `*`: prepared statements must keep their result shape across migrations. */
const WEBHOOK_COLUMNS = ['id', 'url', 'events', 'headers', 'status', 'secret', 'created_at', 'updated_at'];
const EVENT_COLUMNS = ['id', 'type', 'payload', 'correlation_id', 'test', 'created_at'];
/** The delivery's columns, and its position for ordering. */
const DELIVERY_COLUMNS = ['seq', ...deliveryRows.columns];
/** The columns a delivery's state is written to after an attempt, the id first to find it. */
export const STATE_COLUMNS = ['id', ...DELIVERY_STATE_FIELDS] as const;

/** The SQL type of each kind of field, for the arrays a batch is sent in. */
const SQL_TYPES: Readonly<Record<FieldKind, string>> = { value: 'text', integer: 'integer', time: 'bigint', flag: 'boolean', text: 'text' };

const columns = (names: readonly string[], alias?: string): string => names.map((name) => (alias ? `${alias}.${name}` : name)).join(', ');

/** `unnest($n::type[], …) AS alias (columns…)`: one array parameter per column, from `first` on. */
function unnest(fields: Fields, names: readonly string[], first: number): string {
  return `unnest(${names.map((name, i) => `$${first + i}::${SQL_TYPES[fields[name]!.kind]}[]`).join(', ')})`;
}

/** The dispatch store's statements, with table names qualified by the (quoted) schema. */
export function dispatchStatements(schema: string, prepare: Prepare) {
  const webhooks = `${schema}.dispatch_webhooks`;
  const events = `${schema}.dispatch_events`;
  const deliveries = `${schema}.dispatch_deliveries`;
  const attempts = `${schema}.dispatch_attempts`;
  const jobColumns = 'e.payload, e.test AS event_test, e.created_at AS event_created_at, w.url, w.secret, w.headers';
  // The body an attempt sent is its event's payload, stored once per event.
  const attemptColumns = `${columns(attemptRows.columns, 'a')}, e.payload AS request_payload`;
  return {
    /** The attempts table, for the filters that read it. */
    attemptsTable: attempts,
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
    // A batch of attempt rows (inserted in batch order, so that seq follows attempt_number) and
    // each delivery's final state: one statement inside the batch's transaction.
    recordAttempts: prepare(`WITH attempt AS (
        INSERT INTO ${attempts} (${columns(attemptRows.columns)})
        SELECT ${columns(attemptRows.columns)}
        FROM ${unnest(ATTEMPT_FIELDS, attemptRows.columns, 1)} WITH ORDINALITY AS a (${columns(attemptRows.columns)}, position)
        ORDER BY position
      )
      UPDATE ${deliveries} d SET ${DELIVERY_STATE_FIELDS.map((name) => `${name} = s.${name}`).join(', ')}
      FROM ${unnest(DELIVERY_FIELDS, STATE_COLUMNS, attemptRows.columns.length + 1)} AS s (${columns(STATE_COLUMNS)})
      WHERE d.id = s.id`),
    attemptsOfDelivery: prepare(`SELECT ${attemptColumns} FROM ${attempts} a
      JOIN ${events} e ON e.id = a.event_id WHERE a.delivery_id = $1 ORDER BY a.seq`),
    // Built per filter combination, so sent unnamed.
    listDeliveries: (where: string, limit: string, offset: string) =>
      `SELECT ${columns(DELIVERY_COLUMNS, 'd')} FROM ${deliveries} d ${where} ORDER BY d.seq DESC LIMIT ${limit} OFFSET ${offset}`,
    countDeliveries: (where: string) => `SELECT count(*) AS count FROM ${deliveries} d ${where}`,
    exportAttempts: (where: string, limit: string) => `SELECT ${attemptColumns}, a.seq, d.status AS delivery_status
      FROM ${attempts} a
      JOIN ${events} e ON e.id = a.event_id
      JOIN ${deliveries} d ON d.id = a.delivery_id
      ${where} ORDER BY a.seq LIMIT ${limit}`,
  };
}

/** The latest attempt's response status, 0 when it got no answer. */
const latestStatus = (attempts: string): string =>
  `SELECT coalesce(l.response_status, 0) FROM ${attempts} l WHERE l.delivery_id = d.id ORDER BY l.seq DESC LIMIT 1`;

// Filter → SQL condition on the numbered parameter `$n`; a filter applies when its value is given.
const CONDITIONS: Record<keyof AttemptQuery, (n: string, attempts: string) => string> = {
  status: (n) => `d.status = ${n}`,
  event_types: (n) => `d.event_type = ANY(${n}::text[])`,
  webhook_id: (n) => `d.webhook_id = ${n}`,
  event_id: (n) => `d.event_id = ${n}`,
  correlation_id: (n) => `d.correlation_id = ${n}`,
  response_status_range: (n, attempts) => `(${latestStatus(attempts)}) BETWEEN (${n}::int[])[1] AND (${n}::int[])[2]`,
  created_after: (n) => `d.created_at >= ${n}`,
  created_before: (n) => `d.created_at < ${n}`,
  attempted_after: (n) => `a.attempted_at >= ${n}`,
  attempted_before: (n) => `a.attempted_at < ${n}`,
};

/** Collects parameters and hands out their `$n` placeholders in order. */
export class Parameters {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** The WHERE clause of the criteria given in `query`, and of `conditions` before them. */
export function whereOf(query: DeliveryQuery | AttemptQuery, params: Parameters, attempts: string, conditions: string[] = []): string {
  for (const key of Object.keys(CONDITIONS) as (keyof AttemptQuery)[]) {
    const given = (query as AttemptQuery)[key];
    if (given === undefined) continue;
    conditions.push(CONDITIONS[key](params.add(typeof given === 'number' ? int8(given, key) : given), attempts));
  }
  return conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
}

/** The WHERE clause of an export page: the query's criteria, after `cursor`. */
export function attemptWhere(query: AttemptQuery, cursor: number, params: Parameters, attempts: string): string {
  return whereOf(query, params, attempts, [`a.seq > ${params.add(int8(cursor, 'cursor'))}`]);
}
