/*
 * Counts per time bucket, as the dashboard's charts read them from every backend: the range is
 * cut into buckets of `size` ms from `from`, and each backend groups its rows by bucket number and
 * outcome in one indexed range query.
 */

/** Buckets of `size` ms from `from` (inclusive) to `to` (exclusive). */
export interface BucketRange {
  from: number;
  to: number;
  size: number;
}

/** How many rows of one outcome fell into bucket `bucket` (0 for the one starting at `from`). */
export interface BucketCount<Outcome extends string> {
  bucket: number;
  outcome: Outcome;
  count: number;
}

/** Adds counts of the same bucket and outcome, ordered by bucket, then outcome. */
export function mergeBucketCounts<Outcome extends string>(rows: Iterable<BucketCount<Outcome>>): BucketCount<Outcome>[] {
  const merged = new Map<string, BucketCount<Outcome>>();
  for (const row of rows) {
    const key = `${row.bucket}:${row.outcome}`;
    const existing = merged.get(key);
    if (existing) existing.count += row.count;
    else merged.set(key, { bucket: row.bucket, outcome: row.outcome, count: row.count });
  }
  return [...merged.values()].sort((a, b) => a.bucket - b.bucket || (a.outcome < b.outcome ? -1 : a.outcome > b.outcome ? 1 : 0));
}
