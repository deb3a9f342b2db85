/*
 * The sending side's read methods for inspection (the dashboard's charts): deliveries per time
 * bucket by status. Offered beside a dispatch store, as the receiving side's are
 * (received-reads.ts), so that stores written elsewhere need not implement them: the dashboard
 * leaves the charts out for a store without them.
 */

import type { BucketCount, BucketRange } from './buckets.js';
import type { DeliveryStatus } from './dispatch-statuses.js';

/** Which deliveries {@link DispatchReads.deliveryBuckets} counts: created in the range, of one registration when given. */
export interface DeliveryBucketQuery extends BucketRange {
  webhook_id?: string | undefined;
}

/** The sending side's reads. */
export interface DispatchReads {
  /** Deliveries by the bucket of their creation and their status now; empty buckets and statuses are left out. */
  deliveryBuckets(query: DeliveryBucketQuery): Promise<BucketCount<DeliveryStatus>[]>;
}

const offered = new WeakMap<object, DispatchReads>();

/** Attaches the reads to a store; returns the store. */
export function offerDispatchReads<Store extends object>(store: Store, reads: DispatchReads): Store {
  offered.set(store, reads);
  return store;
}

/** The reads of a store, when it offers them. */
export function dispatchReadsOf(store: object): DispatchReads | undefined {
  return offered.get(store);
}
