import { WEBHOOK_STATE_SQL } from '../../ports/webhook-state-counts.js';
import { notifySql } from './wake-ups.js';
import { ATTEMPT_FIELDS, DELIVERY_FIELDS, DELIVERY_STATE_FIELDS } from '../../ports/delivery-fields.js';
import type { FieldKind, Fields } from '../../ports/fields.js';
import type { AttemptQuery, DeliveryQuery } from '../../ports/dispatch-store.js';
import { HEALTH_FIELDS, WEBHOOK_FIELDS } from '../../ports/webhook-fields.js';
import { attemptRows, deliveryRows, webhookRows } from './dispatch-rows.js';
import { int8 } from './int8.js';
import { sqlArrayLiteral, type Prepare } from './statement.js';

/* Columns by name, never `*`: prepared statements must keep their result shape across migrations. */
const WEBHOOK_COLUMNS = webhookRows.columns;
const EVENT_COLUMNS = ['id', 'type', 'payload', 'correlation_id', 'test', 'created_at'];
/** The delivery's columns, and its position for ordering. */
const DELIVERY_COLUMNS = ['seq', ...deliveryRows.columns];
/** The columns a delivery's state is written to after an attempt, the id first to find it. */
export const STATE_COLUMNS = ['id', ...DELIVERY_STATE_FIELDS] as const;

/** The SQL type of each kind of field, for the arrays a batch is sent in. */
const SQL_TYPES: Readonly<Record<FieldKind, string>> = { value: 'text', integer: 'integer', number: 'double precision', time: 'bigint', flag: 'boolean', text: 'text', json: 'json', bytes: 'bytea' };

const columns = (names: readonly string[], alias?: string): string => names.map((name) => (alias ? `${alias}.${name}` : name)).join(', ');

/** The SQL type of each column of `names`, as its field's kind gives it. */
const sqlTypes = (fields: Fields, names: readonly string[]): string[] => names.map((name) => SQL_TYPES[fields[name]!.kind]);

/** `unnest($n::type[], …)`: one array parameter per column (`arrays`, in column order). */
function unnest(types: readonly string[], arrays: readonly string[]): string {
  return `unnest(${types.map((type, i) => `${arrays[i]}::${type}[]`).join(', ')})`;
}

/** The columns of a delivered streak's growth: the registration, its status as read, how many delivered attempts to add and the cap of the sum. */
const STREAK_GROWTH_COLUMNS = ['id', 'status', 'grown_by', 'cap'] as const;
/**
 * The element types of recordAttempts' arrays, in its four parts: the attempts' columns, the
 * deliveries' final states, the changed health, the delivered streaks grown.
 */
const RECORD_PART_TYPES = [
  sqlTypes(ATTEMPT_FIELDS, attemptRows.columns),
  sqlTypes(DELIVERY_FIELDS, STATE_COLUMNS),
  sqlTypes(WEBHOOK_FIELDS, ['id', ...HEALTH_FIELDS]),
  [...sqlTypes(WEBHOOK_FIELDS, ['id', 'status']), 'integer', 'integer'],
] as const;
/** The arrays of recordAttempts, in parameter order (the element type of each). */
export const RECORD_TYPES: readonly string[] = RECORD_PART_TYPES.flat();
/** Each part as `unnest($n::type[], …)`, its parameters numbered on from the part before. */
const [RECORD_ATTEMPTS, RECORD_STATES, RECORD_HEALTH, RECORD_GROWTH] = ((): string[] => {
  let next = 1;
  return RECORD_PART_TYPES.map((types) => unnest(types, types.map(() => `$${next++}`)));
})();
/** The type of each of claimDue's parameters. */
export const CLAIM_TYPES: readonly string[] = ['bigint', 'int', 'text[]', 'int[]', 'int[]', 'text', 'bigint'];

/** The advisory lock namespace of the feed's order (with a hash of the schema and the business). */
const FEED_LOCK_NAMESPACE = 0x61637766; // 'acwf'

/** The dispatch store's statements, with table names qualified by the (quoted) schema. */
/** `wakeUpChannel`: the NOTIFY channel of the schema's workers (wake-ups.ts). */
export function dispatchStatements(schema: string, prepare: Prepare, wakeUpChannel: string) {
  const webhooks = `${schema}.dispatch_webhooks`;
  const events = `${schema}.dispatch_events`;
  const deliveries = `${schema}.dispatch_deliveries`;
  const attempts = `${schema}.dispatch_attempts`;
  const skipped = `${schema}.dispatch_skipped`;
  const jobColumns = 'e.payload, e.test AS event_test, e.created_at AS event_created_at, w.url, w.secret, w.headers, w.scheme, w.previous_secret, w.previous_secret_expires_at';
  // The body an attempt sent is its event's payload, stored once per event.
  const attemptColumns = `${columns(attemptRows.columns, 'a')}, e.payload AS request_payload`;
  return {
    /** The attempts table, for the filters that read it. */
    attemptsTable: attempts,
    insertWebhook: prepare(`INSERT INTO ${webhooks} (${columns(WEBHOOK_COLUMNS)}) VALUES (${WEBHOOK_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`),
    getWebhook: prepare(`SELECT ${columns(WEBHOOK_COLUMNS)} FROM ${webhooks} WHERE id = $1 AND deleted_at IS NULL`),
    listWebhooks: prepare(`SELECT ${columns(WEBHOOK_COLUMNS)} FROM ${webhooks} WHERE deleted_at IS NULL ORDER BY created_at, seq`),
    // Two index lookups (dispatch_webhooks_business, dispatch_webhooks_unowned), oldest first.
    webhooksOfBusiness: prepare(`SELECT ${columns(WEBHOOK_COLUMNS)} FROM (
        SELECT * FROM ${webhooks} WHERE business_id = $1 AND deleted_at IS NULL
        UNION ALL SELECT * FROM ${webhooks} WHERE business_id IS NULL AND deleted_at IS NULL) w ORDER BY created_at, seq`),
    countWebhooks: prepare(`SELECT ${WEBHOOK_STATE_SQL} AS state, COUNT(*)::int AS count FROM ${webhooks} WHERE deleted_at IS NULL GROUP BY 1`),
    // A page in insertion order after a position (seq); $2/$3 NULL: any business/status.
    pageWebhooks: prepare(`SELECT ${columns(WEBHOOK_COLUMNS)}, seq FROM ${webhooks}
      WHERE deleted_at IS NULL AND seq > $1 AND ($2::text IS NULL OR business_id = $2) AND ($3::text IS NULL OR status = $3)
      ORDER BY seq LIMIT $4`),
    // A change is read, merged and written under the row's lock (a field may become NULL).
    lockWebhook: prepare(`SELECT ${columns(WEBHOOK_COLUMNS)} FROM ${webhooks} WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`),
    writeWebhook: prepare(`UPDATE ${webhooks} SET ${WEBHOOK_COLUMNS.slice(1).map((name, i) => `${name} = $${i + 2}`).join(', ')} WHERE id = $1`),
    // After a status change, in the same transaction but a statement of its own, so that it sees
    // the deliveries of an insertEvent it waited for (see insertEvent's lock).
    syncWebhookActive: prepare(`UPDATE ${deliveries} SET webhook_active = $2 WHERE webhook_id = $1 AND status = 'retrying'`),
    // FOR UPDATE first (a plain UPDATE of a non-key column takes only FOR NO KEY UPDATE, which an
    // emit's FOR KEY SHARE would not wait for): a delete and an emit are serialised.
    deleteWebhook: prepare(`WITH locked AS (SELECT id FROM ${webhooks} WHERE id = $1 AND deleted_at IS NULL FOR UPDATE)
      UPDATE ${webhooks} w SET deleted_at = $2 FROM locked WHERE w.id = locked.id RETURNING w.id`),
    endDeliveriesOfWebhook: prepare(`UPDATE ${deliveries}
      SET status = 'finally_failed', next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL, updated_at = $2
      WHERE webhook_id = $1 AND status = 'retrying'`),
    // The event and its deliveries in one statement. ON CONFLICT DO NOTHING: an id stored before
    // (also by a concurrent emit) inserts nothing at all. Deliveries go only to webhooks that still
    // exist, with their status at this moment. FOR KEY SHARE conflicts with the FOR UPDATE lock
    // that every change of a webhook's status or deletion takes (updateWebhook, deleteWebhook, and
    // the attempt recorder when it disables one), so the two are serialised: no delivery is
    // inserted with a status that has just changed, or for a webhook that has just been deleted.
    // It does not conflict with the FOR NO KEY UPDATE of the recorder's health bookkeeping, so an
    // emit never waits for the attempts being recorded (FOR SHARE would make emits queue behind
    // every recording transaction: p99 of the emit call 160 ms at 200/s in bench/capacity.mjs). When deliveries
    // were queued it notifies the workers of every process: PostgreSQL delivers the notification
    // when the statement commits, never before (a worker woken early would find nothing).
    //
    // The feed's order: the event takes its position (seq, from the identity) only once it holds
    // its business's feed lock, which it keeps until it commits; so an event of a business commits
    // before the next one takes a position, and a reader never sees a position after one that is
    // still to commit (a cursor skips nothing). Emits of one business are serialised by it; emits
    // of different businesses are not.
    insertEvent: prepare(`WITH event AS (
        INSERT INTO ${events} (${columns(EVENT_COLUMNS)}, business_id)
        SELECT $1, $2, $3, $4, $5::boolean, $6::bigint, $13::text
        FROM (SELECT pg_advisory_xact_lock(${FEED_LOCK_NAMESPACE}, hashtext('${schema.replaceAll("'", "''")}:' || coalesce($13::text, '')))) AS feed_lock
        ON CONFLICT (id) DO NOTHING
        RETURNING id
      ), targets AS (
        SELECT w.id, w.status FROM ${webhooks} w
        WHERE w.id = ANY($7::text[]) AND w.deleted_at IS NULL AND EXISTS (SELECT 1 FROM event)
        FOR KEY SHARE
      ), inserted AS (
        INSERT INTO ${deliveries} (id, event_id, webhook_id, event_type, correlation_id, status, webhook_active,
          next_attempt_at, lease_owner, lease_until, test, created_at, updated_at)
        SELECT n.id, $1, n.webhook_id, $2, $4, 'retrying', t.status = 'active', n.next_attempt_at, n.lease_owner, n.lease_until, $5, $6, $6
        FROM unnest($8::text[], $7::text[], $9::bigint[], $10::text[], $11::bigint[])
          AS n (id, webhook_id, next_attempt_at, lease_owner, lease_until)
        JOIN targets t ON t.id = n.webhook_id
        RETURNING 1
      ), skipped AS (
        INSERT INTO ${skipped} (webhook_id, event_id, skipped_at)
        SELECT w.id, $1, $6 FROM ${webhooks} w
        WHERE w.id = ANY($12::text[]) AND w.deleted_at IS NULL AND EXISTS (SELECT 1 FROM event)
        ON CONFLICT DO NOTHING
      ), notified AS (
        SELECT ${notifySql(wakeUpChannel)} WHERE EXISTS (SELECT 1 FROM inserted)
      )
      SELECT (SELECT count(*) FROM event) AS events, (SELECT count(*) FROM inserted) AS deliveries, (SELECT count(*) FROM notified) AS notified`),
    getEvent: prepare(`SELECT ${columns(EVENT_COLUMNS)} FROM ${events} WHERE id = $1`),
    getFeedEvent: prepare(`SELECT ${columns(EVENT_COLUMNS)}, business_id, seq FROM ${events} WHERE id = $1`),
    /** The events table, for the feed's statements built from its criteria. */
    eventsTable: events,
    // The registrations a claim may take from, with their attempts in flight (live leases). Sent
    // in the round trip of the claim's BEGIN and advisory lock (the simple protocol, no
    // parameters): `now` is a checked integer written into the text. Counted per registration
    // through dispatch_deliveries_leased, the only index whose condition the count implies (only a
    // pending delivery holds a lease: every transition out of 'retrying' clears it, as SQLite's
    // count relies on too), so the plan holds on a table without statistics: a grouped count with
    // `status = 'retrying'` was planned there through dispatch_deliveries_webhook, every pending
    // delivery read per claim (1.3–2 ms with 5 000 pending, against 0.04).
    claimSubjects: (now: number) => `SELECT w.id, w.failure_streak, w.delivered_streak, w.rate_limit, w.rate_tat,
        (SELECT count(*) FROM ${deliveries} d WHERE d.webhook_id = w.id AND d.lease_owner IS NOT NULL AND d.lease_until > ${int8(now, 'now')})::int AS in_flight
      FROM ${webhooks} w
      WHERE w.status = 'active' AND w.deleted_at IS NULL`,
    // The queue. Each registration's earliest due deliveries, as many as its room ($3–$5, from
    // claimRooms), one index range each (dispatch_deliveries_queue); among them the registration
    // with the fewest attempts in flight first, then the earliest (as fairOrder). The rows are
    // locked (SKIP LOCKED, re-checked after locking: a row leased since the snapshot is no longer
    // due), each by its seq in a lateral lookup of its own, so that the plan is the primary key's
    // whether or not the table has statistics (a join with the picked rows was planned, on a table
    // never analysed, as a scan of every due delivery per picked one: half of a claim's time with
    // 5 000 due), and the lease is written; next_attempt_at becomes the lease's end, so a lease whose
    // worker died is due again by the same index, with no sweeper. With the COMMIT in the same
    // round trip when no rate limit is to be updated after it (runAndCommit, dispatch-store.ts).
    claimDue: prepare(`WITH candidates AS (
        SELECT c.seq, c.next_attempt_at, r.in_flight + row_number() OVER (PARTITION BY r.id ORDER BY c.next_attempt_at, c.seq) AS fairness
        FROM unnest($3::text[], $4::int[], $5::int[]) AS r (id, room, in_flight)
        CROSS JOIN LATERAL (
          SELECT d.seq, d.next_attempt_at FROM ${deliveries} d
          WHERE d.webhook_id = r.id AND d.status = 'retrying' AND d.webhook_active AND d.next_attempt_at <= $1
          ORDER BY d.next_attempt_at, d.seq
          LIMIT r.room
        ) c
      ), picked AS (
        SELECT seq, next_attempt_at, fairness FROM candidates ORDER BY fairness, next_attempt_at, seq LIMIT $2
      ), due AS (
        SELECT d.seq, p.fairness, d.next_attempt_at AS due_at
        FROM picked p CROSS JOIN LATERAL (
          SELECT d.seq, d.next_attempt_at FROM ${deliveries} d
          WHERE d.seq = p.seq AND d.status = 'retrying' AND d.webhook_active AND d.next_attempt_at <= $1
          FOR UPDATE SKIP LOCKED
        ) d
      ), leased AS (
        UPDATE ${deliveries} d SET lease_owner = $6, lease_until = $7, next_attempt_at = $7, updated_at = $1
        FROM due WHERE d.seq = due.seq
        RETURNING ${columns(DELIVERY_COLUMNS, 'd')}, due.fairness, due.due_at
      )
      SELECT ${columns(DELIVERY_COLUMNS, 'l')}, ${jobColumns}
      FROM leased l
      JOIN ${events} e ON e.id = l.event_id
      JOIN ${webhooks} w ON w.id = l.webhook_id
      ORDER BY l.fairness, l.due_at, l.seq`),
    setRateTats: prepare(`UPDATE ${webhooks} w SET rate_tat = t.tat FROM unnest($1::text[], $2::float8[]) AS t (id, tat) WHERE w.id = t.id`),
    // Only what a claim could take: a disabled webhook's overdue delivery does not wake the worker.
    nextDue: prepare(`SELECT next_attempt_at FROM ${deliveries}
      WHERE status = 'retrying' AND webhook_active AND next_attempt_at IS NOT NULL ORDER BY next_attempt_at LIMIT 1`),
    jobById: prepare(`SELECT ${columns(DELIVERY_COLUMNS, 'd')}, ${jobColumns}
      FROM ${deliveries} d
      JOIN ${events} e ON e.id = d.event_id
      JOIN ${webhooks} w ON w.id = d.webhook_id
      WHERE d.id = $1`),
    getDelivery: prepare(`SELECT ${columns(DELIVERY_COLUMNS)} FROM ${deliveries} WHERE id = $1`),
    // Before a recorder writes a status change: waits for the emits in progress, and makes later
    // ones wait for the commit, so that they see the new status (see insertEvent's lock).
    lockStatus: prepare(`SELECT id FROM ${webhooks} WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`),
    syncWebhooksActive: prepare(`UPDATE ${deliveries} SET webhook_active = false WHERE webhook_id = ANY($1::text[]) AND status = 'retrying'`),
    listSkipped: prepare(`SELECT event_id FROM ${skipped} WHERE webhook_id = $1 ORDER BY skipped_at, event_id`),
    // Only what is still recorded as skipped (a replay that ran already replays nothing), and never
    // an event the webhook has a delivery of already.
    replaySkipped: prepare(`WITH forgotten AS (
        DELETE FROM ${skipped} s USING unnest($2::text[], $3::text[], $4::bigint[]) AS n (id, event_id, next_attempt_at)
        WHERE s.webhook_id = $1 AND s.event_id = n.event_id
        RETURNING n.id, n.event_id, n.next_attempt_at
      ), inserted AS (
        INSERT INTO ${deliveries} (id, event_id, webhook_id, event_type, correlation_id, status, webhook_active,
          next_attempt_at, test, created_at, updated_at)
        SELECT f.id, e.id, $1, e.type, e.correlation_id, 'retrying', w.status = 'active', f.next_attempt_at, e.test, $5, $5
        FROM forgotten f JOIN ${events} e ON e.id = f.event_id JOIN ${webhooks} w ON w.id = $1
        ON CONFLICT (event_id, webhook_id) WHERE NOT replay DO NOTHING
        RETURNING 1
      )
      SELECT count(*)::int AS n FROM inserted`),
    // Replay by time range: new deliveries marked replay, except for an event with a pending one to
    // this registration already (a first one: NOT EXISTS; a replayed one, also of a concurrent
    // replay: the unique dispatch_deliveries_replay_pending, which ON CONFLICT meets). The
    // registration is locked as an emit locks it, so a delete waits for the replay to commit.
    replayEvents: prepare(`WITH w AS (
        SELECT id, status FROM ${webhooks} WHERE id = $1 AND deleted_at IS NULL FOR KEY SHARE
      ), inserted AS (
        INSERT INTO ${deliveries} (id, event_id, webhook_id, event_type, correlation_id, status, webhook_active,
          next_attempt_at, test, replay, created_at, updated_at)
        SELECT n.id, e.id, w.id, e.type, e.correlation_id, 'retrying', w.status = 'active', n.next_attempt_at, e.test, true, $5, $5
        FROM unnest($2::text[], $3::text[], $4::bigint[]) AS n (id, event_id, next_attempt_at)
          JOIN ${events} e ON e.id = n.event_id CROSS JOIN w
        WHERE NOT EXISTS (SELECT 1 FROM ${deliveries} p
          WHERE p.event_id = e.id AND p.webhook_id = w.id AND NOT p.replay AND p.status = 'retrying')
        ON CONFLICT (webhook_id, event_id) WHERE replay AND status = 'retrying' DO NOTHING
        RETURNING event_id
      ), forgotten AS (
        DELETE FROM ${skipped} s USING inserted i WHERE s.webhook_id = $1 AND s.event_id = i.event_id
      )
      SELECT count(*)::int AS n FROM inserted`),
    activity: prepare(`SELECT webhook_id, sum(in_flight)::int AS in_flight, sum(skipped)::int AS skipped_events FROM (
        SELECT webhook_id, count(*) AS in_flight, 0 AS skipped FROM ${deliveries}
          WHERE lease_owner IS NOT NULL AND lease_until > $1 AND status = 'retrying' GROUP BY webhook_id
        UNION ALL
        SELECT webhook_id, 0, count(*) FROM ${skipped} GROUP BY webhook_id
      ) a GROUP BY webhook_id`),
    // The pending deliveries by state for metrics (see the SQLite store's statement).
    queueCounts: prepare(`SELECT state, count(*)::int AS n, min(CASE WHEN state = 'due' THEN next_attempt_at END) AS oldest FROM (
        SELECT CASE
            WHEN lease_owner IS NOT NULL AND lease_until > $1 THEN 'in_flight'
            WHEN NOT webhook_active THEN 'paused'
            WHEN next_attempt_at <= $1 THEN 'due'
            ELSE 'scheduled'
          END AS state, next_attempt_at
        FROM ${deliveries} WHERE status = 'retrying'
      ) q GROUP BY state`),
    // An attempt batch's deliveries, locked (FOR UPDATE, in id order), with their registrations'
    // health as last committed, not locked: most batches leave the health as it is (a delivered
    // attempt of a healthy registration), and a lock on the registration's row, held to the commit,
    // made every batch of one registration wait for the one before (34 ms per batch at
    // concurrency 50, measured: the recorder's throughput one commit at a time). A batch that changes a
    // health locks it with lockHealth, reads it afresh and decides again. Sent in the round trip of
    // the batch's BEGIN (the simple protocol): the ids are written into the text as literals.
    lockBatch: (ids: readonly string[]) => `WITH d AS MATERIALIZED (
        SELECT ${columns(DELIVERY_COLUMNS)} FROM ${deliveries} WHERE id = ANY(${sqlArrayLiteral(ids, 'text')}) ORDER BY id FOR UPDATE
      )
      SELECT ${columns(DELIVERY_COLUMNS, 'd')}, ${HEALTH_FIELDS.map((name) => `w.${name} AS webhook_${name}`).join(', ')}
      FROM d JOIN ${webhooks} w ON w.id = d.webhook_id`,
    // The registrations whose health a batch changes, after its deliveries (FOR NO KEY UPDATE, in
    // id order: recorders and webhook changes wait for each other, emits with their FOR KEY SHARE
    // do not; lockStatus takes the stronger lock when a batch changes a status).
    lockHealth: prepare(`SELECT id, ${columns(HEALTH_FIELDS)} FROM ${webhooks} WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE`),
    // A batch of attempt rows (inserted in batch order, so that seq follows attempt_number), each
    // delivery's final state, the health of the registrations it changed (none, mostly: empty
    // arrays) and the delivered streaks it only grew: one statement, with the COMMIT in the same
    // round trip (runAndCommit), so that a batch holding a registration's lock (lockHealth) keeps
    // it for that round trip alone. A growth is added to the streak as it is now, capped, and only
    // while the registration is still in the state the batch read (its status, no failure since):
    // batches that grow one streak commute, and a failure committed meanwhile (which sets the streak
    // to 0) is as if it came after the batch. No lock is taken for it before this statement: a slow
    // start's ramp, where each batch grows the streak, does not make batches wait for each other.
    recordAttempts: prepare(`WITH attempt AS (
        INSERT INTO ${attempts} (${columns(attemptRows.columns)})
        SELECT ${columns(attemptRows.columns)}
        FROM ${RECORD_ATTEMPTS} WITH ORDINALITY AS a (${columns(attemptRows.columns)}, position)
        ORDER BY position
      ), health AS (
        UPDATE ${webhooks} w SET ${HEALTH_FIELDS.map((name) => `${name} = h.${name}`).join(', ')}
        FROM ${RECORD_HEALTH} AS h (id, ${columns(HEALTH_FIELDS)})
        WHERE w.id = h.id
      ), grown AS (
        UPDATE ${webhooks} w SET delivered_streak = LEAST(w.delivered_streak + g.grown_by, GREATEST(g.cap, w.delivered_streak))
        FROM ${RECORD_GROWTH} AS g (${columns(STREAK_GROWTH_COLUMNS)})
        WHERE w.id = g.id AND w.status = g.status AND w.failure_streak = 0
      )
      UPDATE ${deliveries} d SET ${DELIVERY_STATE_FIELDS.map((name) => `${name} = s.${name}`).join(', ')}
      FROM ${RECORD_STATES} AS s (${columns(STATE_COLUMNS)})
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

    // Retention (retention.ts): each statement a short transaction of its own. A batch of
    // deliveries that are over, with their attempts (the foreign key is checked at the end of the
    // statement, when both are gone); rows another transaction holds are left for the next batch.
    pruneDeliveries: prepare(`WITH picked AS (
        SELECT id FROM ${deliveries} WHERE status <> 'retrying' AND updated_at < $1 ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED
      ), attempts_gone AS (
        DELETE FROM ${attempts} a USING picked p WHERE a.delivery_id = p.id
      )
      DELETE FROM ${deliveries} d USING picked p WHERE d.id = p.id RETURNING d.event_id`),
    // A statement of its own, so that it sees the deliveries the one before deleted.
    pruneEvents: prepare(`DELETE FROM ${events} e WHERE e.id = ANY($1::text[])
      AND NOT EXISTS (SELECT 1 FROM ${deliveries} d WHERE d.event_id = e.id)
      AND NOT EXISTS (SELECT 1 FROM ${skipped} s WHERE s.event_id = e.id)`),
    removePayloads: prepare(`WITH picked AS (
        SELECT e.id FROM ${events} e
        WHERE e.payload_removed_at IS NULL AND e.created_at < $1
          AND NOT EXISTS (SELECT 1 FROM ${deliveries} d WHERE d.event_id = e.id AND (d.status = 'retrying' OR d.updated_at >= $1))
          AND NOT EXISTS (SELECT 1 FROM ${skipped} s WHERE s.event_id = e.id)
        ORDER BY e.created_at LIMIT $2 FOR UPDATE SKIP LOCKED
      ), bodies AS (
        UPDATE ${attempts} a SET response_body = $4 FROM ${deliveries} d, picked p
        WHERE d.event_id = p.id AND a.delivery_id = d.id AND a.response_body IS NOT NULL AND a.response_body <> $4
      )
      UPDATE ${events} e SET payload = $4, payload_removed_at = $3 FROM picked p WHERE e.id = p.id RETURNING e.id`),
    // An erase by business, in one transaction: what is left to send is ended, then the payloads go.
    eraseEndDeliveries: prepare(`UPDATE ${deliveries} d
      SET status = 'finally_failed', next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL, updated_at = $2
      FROM ${events} e WHERE e.business_id = $1 AND d.event_id = e.id AND d.status = 'retrying'`),
    // The business's registrations: deleted, secrets blanked (the columns are NOT NULL), header values replaced.
    eraseWebhooks: prepare(`WITH gone AS (
        UPDATE ${webhooks} SET secret = '', previous_secret = NULL, deleted_at = $2,
          headers = COALESCE((SELECT json_object_agg(key, $3::text) FROM json_each(headers)), '{}'::json)
        WHERE business_id = $1 AND deleted_at IS NULL RETURNING id),
      ended AS (UPDATE ${deliveries} d SET status = 'finally_failed', next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL, updated_at = $2
        FROM gone WHERE d.webhook_id = gone.id AND d.status = 'retrying' RETURNING d.id)
      SELECT (SELECT count(*) FROM gone)::int AS webhooks, (SELECT count(*) FROM ended)::int AS ended`),
    eraseSkipped: prepare(`DELETE FROM ${skipped} s USING ${events} e WHERE e.business_id = $1 AND s.event_id = e.id`),
    eraseBodies: prepare(`UPDATE ${attempts} a SET response_body = $2 FROM ${deliveries} d, ${events} e
      WHERE e.business_id = $1 AND d.event_id = e.id AND a.delivery_id = d.id AND a.response_body IS NOT NULL AND a.response_body <> $2`),
    erasePayloads: prepare(`UPDATE ${events} SET payload = $2, payload_removed_at = $3 WHERE business_id = $1 AND payload_removed_at IS NULL`),
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
