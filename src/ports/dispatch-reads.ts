/*
 * The sending side's read methods for inspection (the dashboard's charts): deliveries per time
 * bucket by status. Offered beside a dispatch store, as the receiving side's are
 * (received-reads.ts), so that stores written elsewhere need not implement them: the dashboard
 * leaves the charts out for a store without them.
 */

import type { BucketCount, BucketRange } from './buckets.js';
import { offeredBeside } from './offered.js';
import type { DeliveryStatus } from './dispatch-statuses.js';
import type { StoredAttempt } from './delivery-fields.js';

/** Which deliveries {@link DispatchReads.deliveryBuckets} counts: created in the range, of one registration when given. */
export interface DeliveryBucketQuery extends BucketRange {
  webhook_id?: string | undefined;
}

/** Attempts of one bucket: how many were made, how many delivered. */
export interface AttemptBucket {
  bucket: number;
  attempts: number;
  delivered: number;
}

/** One attempt, as a link to its delivery. */
export interface AttemptRef {
  delivery_id: string;
  attempted_at: number;
}

/** A registration's attempts in a range: per bucket, response times, the latest delivered and failed one. */
export interface AttemptStats {
  webhook_id: string;
  /** Buckets with attempts, in order. */
  buckets: AttemptBucket[];
  /** Response time percentiles (nearest rank) over the range's attempts. */
  p50_ms: number;
  p95_ms: number;
  last_delivered: AttemptRef | null;
  last_failed: AttemptRef | null;
}

/** A delivery's latest attempt (by the order attempts are recorded in): its answer. */
export type LatestAnswer = Pick<StoredAttempt, 'delivery_id' | 'response_status' | 'error_kind'>;

/** The sending side's reads. */
export interface DispatchReads {
  /** Deliveries by the bucket of their creation and their status now; empty buckets and statuses are left out. */
  deliveryBuckets(query: DeliveryBucketQuery): Promise<BucketCount<DeliveryStatus>[]>;
  /** Per registration with attempts in the range (or the one asked for), its attempts by the bucket they were made in. */
  attemptStats(query: DeliveryBucketQuery): Promise<AttemptStats[]>;
  /** The latest attempt's answer of each delivery given that has attempts, in one query (the deliveries list's last HTTP status). */
  latestAnswers(deliveryIds: readonly string[]): Promise<LatestAnswer[]>;
}

const reads = offeredBeside<DispatchReads>();

/** Attaches the reads to a store; returns the store. */
export const offerDispatchReads = reads.offer;

/** The reads of a store, when it offers them. */
export const dispatchReadsOf = reads.of;
