/** What a retry's wait depends on. */
export interface RetryWaitInput {
  /** Which retry this is: 1 for the first. */
  retry: number;
  /** The wait the answer asked for (Retry-After), or `null`. */
  retryAfterMs: number | null;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A number in [0, 1): `Math.random`. */
  random: () => number;
}

/**
 * The wait before a retry, in milliseconds: exponential backoff (`baseDelayMs`, doubled each
 * retry, at most `maxDelayMs`) with jitter, the platform's recommended client behaviour on 429.
 * The upper half of the exponential step is random ("equal jitter"), so clients refused together
 * do not come back together. A `Retry-After` is a floor: the wait is never shorter than it asks.
 */
export function retryWait({ retry, retryAfterMs, baseDelayMs, maxDelayMs, random }: RetryWaitInput): number {
  const step = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, retry - 1));
  const floor = Math.max(retryAfterMs ?? 0, step / 2);
  return Math.round(floor + random() * (step / 2));
}
