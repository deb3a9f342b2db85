/** Every metric's name starts with this (`acct_webhook_…` in Prometheus). */
export const METRIC_PREFIX = 'acct_webhook';

/** Histogram buckets for one attempt, in seconds: up to the 30 s timeout. */
export const ATTEMPT_SECONDS_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Histogram buckets for emit → delivered, in seconds: from at once to the last attempt of the schedule (34.6 h). */
export const LATENCY_SECONDS_BUCKETS: readonly number[] = [0.01, 0.05, 0.1, 0.5, 1, 5, 30, 60, 360, 2160, 9360, 38160, 124560];
