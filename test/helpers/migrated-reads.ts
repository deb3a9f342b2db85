// The dashboard's migrations tested on both backends (test/stores/sqlite/migrations.test.ts,
// test/stores/postgres/migrations.test.ts): what its reads must return after store migration 4 (the
// receiving side's indexes) and dispatch migration 6 (the overview's index on deliveries) from
// the rows an older database held.
import { expect } from 'vitest';
import { dispatchReadsOf } from '../../src/ports/dispatch-reads.js';
import type { DispatchStore } from '../../src/ports/dispatch-store.js';
import { eventRecordsOf } from '../../src/ports/event-records.js';
import { receivedReadsOf } from '../../src/ports/received-reads.js';
import type { IdempotencyStore } from '../../src/ports/idempotency-store.js';

export const T0 = Date.UTC(2026, 10, 1, 9, 0, 0);
const HOUR = 3_600_000;

/** Deliveries as `[id, status, created_at]`, over three hourly buckets from T0. */
export const VERSION_5_DELIVERIES: readonly (readonly [string, string, number])[] = [
  ['dlv_1', 'delivered', T0],
  ['dlv_2', 'retrying', T0 + 1],
  ['dlv_3', 'finally_failed', T0 + HOUR],
  ['dlv_4', 'delivered', T0 + HOUR + 1],
  ['dlv_5', 'delivered', T0 + 2 * HOUR],
];

/** The overview's chart and its counts by status read those deliveries as they did before the migration. */
export async function expectDeliveriesReadAsBefore(store: DispatchStore): Promise<void> {
  const reads = dispatchReadsOf(store)!;
  expect(await reads.deliveryBuckets({ from: T0, to: T0 + 2 * HOUR, size: HOUR })).toEqual([
    { bucket: 0, outcome: 'delivered', count: 1 },
    { bucket: 0, outcome: 'retrying', count: 1 },
    { bucket: 1, outcome: 'delivered', count: 1 },
    { bucket: 1, outcome: 'finally_failed', count: 1 },
  ]);
  expect([await store.countDeliveries({ status: 'delivered' }), await store.countDeliveries({ status: 'retrying' }), await store.countDeliveries({ status: 'finally_failed' })]).toEqual([3, 1, 1]);
}

/**
 * A version-3 receiver's rows (one completed and one processing record, two done inbox events of
 * which one stale, a quarantined body, events failed in the hour from T0) read after migration 4
 * as they did before: counts, the inbox's pages and counts, the received-events chart.
 */
export async function expectReceivedReadsAsBefore(store: IdempotencyStore): Promise<void> {
  const reads = receivedReadsOf(store)!;
  const records = eventRecordsOf(store)!;
  expect([await records.count('completed'), await records.count('processing')]).toEqual([1, 1]);
  expect((await reads.inboxPage({ status: 'done', limit: 10, offset: 0 })).map((event) => event.event_id)).toEqual(['evt_in_stale', 'evt_in_done']);
  expect(await reads.inboxCount({ status: 'done', stale: true })).toBe(1);
  expect(await reads.inboxCount({ type: 'invoice.paid' })).toBe(2);
  expect(await reads.receivedBuckets({ from: T0, to: T0 + HOUR, size: HOUR, now: T0 + 120_000 })).toEqual([
    { bucket: 0, outcome: 'failed', count: 2 },
    { bucket: 0, outcome: 'handled', count: 2 },
    { bucket: 0, outcome: 'quarantined', count: 1 },
    { bucket: 0, outcome: 'stale', count: 1 },
  ]);
}

/** Version 4's inbox rows the worker still has to run: arrived after the chart's hour, of a type the reads above do not count. */
export const VERSION_4_WAITING = { pending: 'evt_in_pending', expired: 'evt_in_expired', receivedAt: T0 + 2 * HOUR, type: 'customer.updated' } as const;

/**
 * After migration 5 (the inbox's indexes): the rows of {@link expectReceivedReadsAsBefore} and
 * {@link VERSION_4_WAITING} (a pending event, and a processing one whose lease ran out at T0) run
 * as before: both claimed, completed, counted; pruning takes the old done events and keeps the new.
 */
export async function expectInboxRunsAsBefore(store: IdempotencyStore, retentionMs: number): Promise<void> {
  const inbox = store.inbox!;
  const now = T0 + 3 * HOUR;
  const claimed = await inbox.claim(now, 60_000, 10);
  expect(claimed.map((event) => event.eventId).sort()).toEqual([VERSION_4_WAITING.expired, VERSION_4_WAITING.pending]);
  for (const event of claimed) expect(await inbox.complete(event.eventId, event.token, now)).toBe(true);
  expect(await inbox.claim(now, 60_000, 10)).toEqual([]);
  expect(await inbox.stats(now)).toMatchObject({ pending: 0, processing: 0, done: 4, dead: 1 });
  expect((await receivedReadsOf(store)!.inboxPage({ type: VERSION_4_WAITING.type, limit: 10, offset: 0 })).map((event) => event.event_id)).toEqual([
    VERSION_4_WAITING.expired,
    VERSION_4_WAITING.pending,
  ]);
  // The done events of T0 are past the retention at T0 + retention + 1 h; those done at T0 + 3 h are not.
  await store.prune(T0 + retentionMs + HOUR);
  expect(await inbox.stats(now)).toMatchObject({ done: 2, dead: 1 });
  expect(await inbox.get('evt_in_done')).toBeUndefined();
  expect(await inbox.get(VERSION_4_WAITING.pending)).toMatchObject({ status: 'done' });
}
