/*
 * The receiving side's read methods for inspection (the dashboard): a page of the inbox with its
 * total, and what was received per time bucket by outcome. Offered beside a store, as its event
 * records are (event-records.ts), so that stores written elsewhere need not implement them: the
 * dashboard shows less for a store without them.
 */

import type { BucketCount, BucketRange } from './buckets.js';
import { offeredBeside } from './offered.js';
import type { InboxEvent, InboxStatus } from './inbox.js';

/** Which inbox events {@link ReceivedReads.inboxCount} counts. */
export interface InboxCountQuery {
  status?: InboxStatus | undefined;
  /** An event type. */
  type?: string | undefined;
  /** Only events the ordering guard skipped (true) or did not skip (false). */
  stale?: boolean | undefined;
  /** Received at or after (ms). */
  received_after?: number | undefined;
  /** Received before (ms). */
  received_before?: number | undefined;
}

/** One page of the inbox, newest first (received, then event id). */
export interface InboxPageQuery extends InboxCountQuery {
  limit: number;
  offset: number;
}

/**
 * What became of what was received, as the charts stack it: `handled` (its handlers succeeded,
 * directly or through the inbox), `stale` (the ordering guard skipped it: a newer event of its
 * object was handled first), `quarantined` (authentic but invalid), `failed` (a direct-mode claim
 * whose handlers failed and whose lease ran out, awaiting the sender's retry; or an inbox event
 * that is dead), `pending` (in the inbox waiting or running, or a direct-mode claim still leased).
 */
export type ReceivedOutcome = 'handled' | 'stale' | 'quarantined' | 'failed' | 'pending';

/** The outcomes in the order the charts stack them. */
export const RECEIVED_OUTCOMES: readonly ReceivedOutcome[] = ['handled', 'stale', 'quarantined', 'failed', 'pending'];

/** The range of {@link ReceivedReads.receivedBuckets}; `now` tells a live lease from an expired one. */
export interface ReceivedBucketQuery extends BucketRange {
  now: number;
}

/** The receiving side's reads. Times are when an event was first received (a quarantined payload: first delivered). */
export interface ReceivedReads {
  inboxPage(query: InboxPageQuery): Promise<InboxEvent[]>;
  inboxCount(query: InboxCountQuery): Promise<number>;
  /** How many payloads the quarantine holds (without reading them). */
  quarantineCount(): Promise<number>;
  /** Counts by bucket and outcome; buckets and outcomes with no event are left out. */
  receivedBuckets(query: ReceivedBucketQuery): Promise<BucketCount<ReceivedOutcome>[]>;
}

const reads = offeredBeside<ReceivedReads>();

/** Attaches the reads to a store; returns the store. */
export const offerReceivedReads = reads.offer;

/** The reads of a store, when it offers them. */
export const receivedReadsOf = reads.of;
