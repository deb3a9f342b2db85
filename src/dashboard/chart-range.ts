import type { BucketRange } from '../ports/buckets.js';

const HOUR = 3_600_000;

/** The ranges the overview's charts switch between (`?range=`), each with its bucket size. */
export const CHART_RANGES = {
  '24h': { label: 'last 24 hours', spanMs: 24 * HOUR, bucketMs: HOUR, per: 'hour' },
  '7d': { label: 'last 7 days', spanMs: 7 * 24 * HOUR, bucketMs: 6 * HOUR, per: '6 hours' },
} as const;

export type ChartRangeName = keyof typeof CHART_RANGES;

/** The range the overview shows when the URL names none. */
export const DEFAULT_CHART_RANGE: ChartRangeName = '24h';

export function chartRangeName(given: string | null): ChartRangeName {
  return given !== null && Object.hasOwn(CHART_RANGES, given) ? (given as ChartRangeName) : DEFAULT_CHART_RANGE;
}

/**
 * The buckets of a range that ends with the bucket holding `now`: boundaries on whole buckets of
 * UTC time, so that a bar means the same hours on every load.
 */
export function chartRange(name: ChartRangeName, now: number): BucketRange {
  const { spanMs, bucketMs } = CHART_RANGES[name];
  const to = (Math.floor(now / bucketMs) + 1) * bucketMs;
  return { from: to - spanMs, to, size: bucketMs };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A bucket boundary as the charts name it: "25 Nov 14:00" (UTC). */
export function bucketLabel(ms: number): string {
  const date = new Date(ms);
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${String(date.getUTCHours()).padStart(2, '0')}:${String(date.getUTCMinutes()).padStart(2, '0')}`;
}

/** A time as the deliveries filter takes it (UTC, to the second, no zone: the form's datetime-local value). */
export function filterTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}
