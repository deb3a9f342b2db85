// Dispatch migration 6 (the overview's index on deliveries) tested on both backends
// (test/sqlite/migrations.test.ts, test/postgres/migrations.test.ts): the deliveries a version-5
// database holds, and what the dashboard must read from them after the migration.
import { expect } from 'vitest';
import { dispatchReadsOf } from '../../src/ports/dispatch-reads.js';
import type { DispatchStore } from '../../src/ports/dispatch-store.js';

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
