// How an emit (insertEvent) and the attempt recorder share a registration's row on PostgreSQL
// (src/stores/postgres/dispatch-statements.ts, insertEvent's lock): an emit never queues behind attempts
// being recorded, and still sees a status change the recorder makes. And how the recorder takes
// that row's lock only for a health it changes (attempt-recorder.ts).
import { afterEach, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { recordingOf } from '../../../src/dispatcher/attempt-recording.js';
import { afterAttempt } from '../../../src/dispatcher/schedule.js';
import type { DispatchStore } from '../../../src/ports/dispatch-store.js';
import { postgresDispatchStore } from '../../../src/stores/postgres/index.js';
import { attemptOf, NOW, storedEvent, webhook } from '../../../src/testing/dispatch-store-contract.js';
import { useTestDatabase } from '../../helpers/postgres.js';

const database = useTestDatabase({ poolSize: 4 });
const opened: DispatchStore[] = [];
const held: pg.PoolClient[] = [];
afterEach(async () => {
  for (const client of held.splice(0)) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
  }
  for (const store of opened.splice(0)) await store.close();
});

async function openStore(): Promise<{ store: DispatchStore; schema: string }> {
  const schema = database.newSchema();
  const store = postgresDispatchStore(database.url, { schema, poolSize: 4 });
  opened.push(store);
  await store.ready();
  return { store, schema };
}

/** A connection of the test's own, in a transaction, rolled back after the case unless committed. */
async function transaction(): Promise<pg.PoolClient> {
  const client = await database.pool.connect();
  held.push(client);
  await client.query('BEGIN');
  return client;
}

/**
 * Resolves once `count` statements on `schema` wait for a table or row lock: a barrier on the
 * server's own view (other tests on the same server use other schemas). Only those lock kinds
 * count: an emit's commit also takes the database's NOTIFY lock for a moment, and waiting for
 * another process's NOTIFY (other tests, other sessions on this database) says nothing here.
 */
async function lockWaiters(schema: string, count: number): Promise<void> {
  for (;;) {
    const { rows } = await database.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event IN ('relation', 'transactionid', 'tuple') AND position($1 in query) > 0",
      [`"${schema}".`],
    );
    if (rows[0]!.n >= count) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A registration with one delivery, claimed: what a worker holds while it sends. */
async function claimedDelivery(store: DispatchStore, overrides: Parameters<typeof webhook>[1] = {}) {
  await store.insertWebhook(webhook('wh_a', overrides));
  await store.insertEvent(storedEvent('evt_sent'), [{ id: 'dlv_sent', webhook_id: 'wh_a', next_attempt_at: NOW }]);
  const [job] = await store.claimDue({ now: NOW, limit: 1, lease: { owner: 'worker', until: NOW + 60_000 }, maxInFlight: 10, maxInFlightWhileFailing: 10, initialInFlight: 10 });
  return job!;
}

describe('postgresDispatchStore: an emit and the attempts recorded for the same registration', () => {
  it('an emit is stored while an attempt of the same registration is being recorded (it does not wait for it)', async () => {
    const { store, schema } = await openStore();
    const job = await claimedDelivery(store);
    // The recorder is held after it locked the delivery and the registration: its insert of the
    // attempt waits for this table lock.
    const blocker = await transaction();
    await blocker.query(`LOCK TABLE "${schema}".dispatch_attempts IN SHARE MODE`);
    const recording = store.recordAttempt(job.delivery.id, recordingOf(attemptOf(job, { error_kind: null, response_status: 200, error_message: null }), afterAttempt({ delivered: true, manual: false, leaseOwner: 'worker', startedAt: NOW, schedule: [0, 60] })));
    await lockWaiters(schema, 1);

    const emitted = store.insertEvent(storedEvent('evt_next'), [{ id: 'dlv_next', webhook_id: 'wh_a', next_attempt_at: NOW }]);
    const first = await Promise.race([emitted.then(() => 'stored'), lockWaiters(schema, 2).then(() => 'waited for the recorder')]);
    expect(first).toBe('stored');
    await expect(emitted).resolves.toEqual({ inserted: true, deliveries: 1 });

    await blocker.query('COMMIT');
    await expect(recording).resolves.toMatchObject({ delivery: { status: 'delivered' } });
  });

  it('a registration the recorder disables while an emit is in progress: the emit\'s delivery ends up inactive', async () => {
    const { store, schema } = await openStore();
    // Failing for a day already: the next failed attempt disables it.
    const job = await claimedDelivery(store, { failure_streak: 5, failing_since: NOW - 86_400_000, last_failure_at: NOW - 60_000 });
    await store.insertEvent(storedEvent('evt_racing'), []);
    // An emit in progress: it has read the registration as active under its FOR KEY SHARE lock.
    const emit = await transaction();
    await emit.query(`SELECT id FROM "${schema}".dispatch_webhooks WHERE id = 'wh_a' FOR KEY SHARE`);

    const disablesAfterAnHour = { disableAfterMs: 3_600_000, warnAt: [] };
    const recording = store.recordAttempt(job.delivery.id, recordingOf(attemptOf(job), afterAttempt({ delivered: false, manual: false, leaseOwner: 'worker', startedAt: NOW, schedule: [0, 60] }), disablesAfterAnHour));
    await lockWaiters(schema, 1); // the status change waits for the emit

    await emit.query(
      `INSERT INTO "${schema}".dispatch_deliveries (id, event_id, webhook_id, event_type, correlation_id, status, webhook_active, next_attempt_at, test, created_at, updated_at)
       VALUES ('dlv_racing', 'evt_racing', 'wh_a', 'invoice.paid', 'cor_racing', 'retrying', true, $1, false, $1, $1)`,
      [NOW],
    );
    await emit.query('COMMIT');
    await expect(recording).resolves.toMatchObject({ health: { status: 'disabled' } });

    const { rows } = await database.pool.query<{ webhook_active: boolean }>(`SELECT webhook_active FROM "${schema}".dispatch_deliveries WHERE id = 'dlv_racing'`);
    expect(rows).toEqual([{ webhook_active: false }]);
    expect(await store.nextDueAt()).toBeNull();
  });
});

describe('postgresDispatchStore: the attempt recorder and a registration\'s row lock', () => {
  const delivered = { error_kind: null, response_status: 200, error_message: null } as const;
  const sent = (delivered: boolean) => afterAttempt({ delivered, manual: false, leaseOwner: 'worker', startedAt: NOW, schedule: [0, 60] });

  it('an attempt that leaves the registration\'s health as it was does not wait for the registration\'s row lock', async () => {
    const { store, schema } = await openStore();
    const job = await claimedDelivery(store);
    // Another recorder changing this registration's health, not yet committed.
    const other = await transaction();
    await other.query(`SELECT id FROM "${schema}".dispatch_webhooks WHERE id = 'wh_a' FOR NO KEY UPDATE`);

    const recording = store.recordAttempt(job.delivery.id, recordingOf(attemptOf(job, delivered), sent(true)));
    const first = await Promise.race([recording.then(() => 'stored'), lockWaiters(schema, 1).then(() => 'waited for the lock')]);
    expect(first).toBe('stored');
    await expect(recording).resolves.toMatchObject({ delivery: { status: 'delivered' }, health: { failure_streak: 0 } });
  });

  it('an attempt that changes the health is decided again from the health read under the lock', async () => {
    const { store, schema } = await openStore();
    const job = await claimedDelivery(store);
    // Another recorder counted three failures and has not committed: this record reads the health
    // it had before, sees a change (a first failure), then waits for the lock.
    const other = await transaction();
    await other.query(`UPDATE "${schema}".dispatch_webhooks SET failure_streak = 3, failing_since = $1, last_failure_at = $2 WHERE id = 'wh_a'`, [NOW - 1_000, NOW - 500]);
    const recording = store.recordAttempt(job.delivery.id, recordingOf(attemptOf(job, { attempted_at: NOW }), sent(false)));
    await lockWaiters(schema, 1);
    await other.query('COMMIT');

    // The fourth failure of a streak that began at NOW - 1 000, not a first one.
    await expect(recording).resolves.toMatchObject({ health: { failure_streak: 4, failing_since: NOW - 1_000, last_failure_at: NOW } });
    expect(await store.getWebhook('wh_a')).toMatchObject({ failure_streak: 4, failing_since: NOW - 1_000, last_failure_at: NOW });
    expect(await store.getDelivery(job.delivery.id)).toMatchObject({ status: 'retrying', attempt_count: 1 });
  });

  // A new registration's slow start: every delivered attempt grows the streak (up to the cap), so
  // every batch changes the health; the growth is added as it is written, not decided under a lock
  // taken a round trip before, and nothing another recorder committed meanwhile is lost.
  const countsUpTo = (cap: number) => ({ disableAfterMs: null, warnAt: [], countDeliveredUpTo: cap });
  const streakOf = async (schema: string) =>
    (await database.pool.query<{ delivered_streak: number; failure_streak: number }>(`SELECT delivered_streak, failure_streak FROM "${schema}".dispatch_webhooks WHERE id = 'wh_a'`)).rows[0];

  // Another recorder has changed the streak and not committed; this record read the streak before.
  it.each([
    { case: 'another recorder grows the same streak: both growths are kept', read: 0, concurrent: 'delivered_streak + 2', cap: 10, stored: 3 },
    { case: 'concurrent growths stop at the cap', read: 3, concurrent: '4', cap: 4, stored: 4 },
  ])('delivered attempts recorded while $case', async ({ read, concurrent, cap, stored }) => {
    const { store, schema } = await openStore();
    const job = await claimedDelivery(store, { delivered_streak: read });
    const other = await transaction();
    await other.query(`UPDATE "${schema}".dispatch_webhooks SET delivered_streak = ${concurrent} WHERE id = 'wh_a'`);
    const recording = store.recordAttempt(job.delivery.id, recordingOf(attemptOf(job, delivered), sent(true), countsUpTo(cap)));
    await lockWaiters(schema, 1);
    await other.query('COMMIT');

    await expect(recording).resolves.toMatchObject({ delivery: { status: 'delivered' } });
    expect(await streakOf(schema)).toEqual({ delivered_streak: stored, failure_streak: 0 });
  });

  it('a failure committed while a growth waits ends the streak: the delivered attempt counts as the earlier of the two', async () => {
    const { store, schema } = await openStore();
    const job = await claimedDelivery(store, { delivered_streak: 2 });
    const other = await transaction();
    await other.query(`UPDATE "${schema}".dispatch_webhooks SET failure_streak = 1, failing_since = $1, last_failure_at = $1, delivered_streak = 0 WHERE id = 'wh_a'`, [NOW]);
    const recording = store.recordAttempt(job.delivery.id, recordingOf(attemptOf(job, delivered), sent(true), countsUpTo(10)));
    await lockWaiters(schema, 1);
    await other.query('COMMIT');

    // The delivery is recorded; the registration is as the failure left it (a failure sets the
    // streak to 0 whatever came before it), never a mix of the two.
    await expect(recording).resolves.toMatchObject({ delivery: { status: 'delivered', attempt_count: 1 } });
    expect(await store.getWebhook('wh_a')).toMatchObject({ failure_streak: 1, failing_since: NOW, delivered_streak: 0 });
  });

  it('records a delivery whose id holds quotes and backslashes (the batch\'s ids are written into its text)', async () => {
    const { store } = await openStore();
    await store.insertWebhook(webhook('wh_a'));
    const id = "dlv_it's\\a \\' quote";
    await store.insertEvent(storedEvent('evt_odd'), [{ id, webhook_id: 'wh_a', next_attempt_at: NOW }]);
    const [job] = await store.claimDue({ now: NOW, limit: 1, lease: { owner: 'worker', until: NOW + 60_000 } });
    expect(job!.delivery.id).toBe(id);
    await expect(store.recordAttempt(id, recordingOf(attemptOf(job!, delivered), sent(true)))).resolves.toMatchObject({ delivery: { id, status: 'delivered' } });
  });
});
