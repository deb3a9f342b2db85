/**
 * Waits before attempts 1–7, in seconds, as the platform's document gives them: 0, 1 min, 5 min,
 * 30 min, 2 h, 8 h, 24 h — attempts at 0, 1, 6, 36, 156, 636 and 2076 minutes after the first.
 */
export const RETRY_SCHEDULE: readonly number[] = Object.freeze([0, 60, 300, 1800, 7200, 28800, 86400]);
