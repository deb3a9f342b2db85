/*
 * What the SQL backends' receiving-side reads share: the inbox list's filters as conditions, and
 * the charts' counts per bucket, read as one row per bucket with a column per outcome.
 */

import type { BucketCount, BucketRange } from './buckets.js';
import { RECEIVED_OUTCOMES, type InboxCountQuery, type ReceivedOutcome } from './received-reads.js';

/** A filter of the inbox list, by its name in the query. */
export type InboxFilterName = 'status' | 'type' | 'stale' | 'received_after' | 'received_before';

const CONDITIONS: Record<InboxFilterName, (placeholder: string) => string> = {
  status: (placeholder) => `status = ${placeholder}`,
  type: (placeholder) => `event_type = ${placeholder}`,
  stale: (placeholder) => `stale = ${placeholder}`,
  received_after: (placeholder) => `received_at >= ${placeholder}`,
  received_before: (placeholder) => `received_at < ${placeholder}`,
};

/**
 * The conditions of the filters given in `query`, in a fixed order, each with the placeholder
 * `bind` returns for its value; filters not given add no condition, so that each combination is
 * its own statement and the database can walk the index that fits it.
 */
export function inboxConditions(query: InboxCountQuery, bind: (name: InboxFilterName, value: string | number | boolean) => string): string[] {
  const given: [InboxFilterName, string | number | boolean | undefined][] = [
    ['status', query.status],
    ['type', query.type],
    ['stale', query.stale],
    ['received_after', query.received_after],
    ['received_before', query.received_before],
  ];
  return given.flatMap(([name, value]) => (value === undefined ? [] : [CONDITIONS[name](bind(name, value))]));
}

/** One bucket's counts, one column per outcome. */
export type BucketTotals = { bucket: number } & Record<ReceivedOutcome, number>;

/** The rows the charts take: one per bucket and outcome with events, by bucket, then outcome. */
export function bucketRows(rows: readonly BucketTotals[]): BucketCount<ReceivedOutcome>[] {
  const outcomes = [...RECEIVED_OUTCOMES].sort();
  return [...rows]
    .sort((a, b) => a.bucket - b.bucket)
    .flatMap((row) => outcomes.flatMap((outcome) => (Number(row[outcome]) > 0 ? [{ bucket: Number(row.bucket), outcome, count: Number(row[outcome]) }] : [])));
}

/** A range with no bucket (or buckets of no size, which would never end): nothing to count. */
export function isEmpty(range: BucketRange): boolean {
  return !(range.size > 0 && range.to > range.from);
}
