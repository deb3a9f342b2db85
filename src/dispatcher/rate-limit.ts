import { RateLimitError } from './errors.js';

/** At most `max` operations per `windowMs` (the platform's manual-retry limit: 50 per 15 minutes). */
export interface RateLimit {
  /** Operations allowed per window. */
  max: number;
  windowMs: number;
}

/**
 * A sliding window: at most `max` operations in any `windowMs`. Holds at most `max` timestamps.
 * Time comes from the injected clock.
 */
export class SlidingWindowLimiter {
  private readonly hits: number[] = [];

  constructor(
    private readonly limit: RateLimit,
    private readonly clock: () => number,
  ) {}

  /** Counts one operation, or throws {@link RateLimitError} with `retry_after` when the window is full. */
  take(): void {
    const now = this.clock();
    while (this.hits.length > 0 && this.hits[0]! <= now - this.limit.windowMs) this.hits.shift();
    if (this.hits.length >= this.limit.max) {
      const resetAt = this.hits[0]! + this.limit.windowMs;
      throw new RateLimitError({
        retry_after: Math.max(1, Math.ceil((resetAt - now) / 1000)),
        limit: this.limit.max,
        window: describeWindow(this.limit.windowMs),
        reset_at: new Date(resetAt).toISOString(),
      });
    }
    this.hits.push(now);
  }
}

function describeWindow(ms: number): string {
  if (ms % 60_000 === 0) return ms === 60_000 ? '1 minute' : `${ms / 60_000} minutes`;
  return `${ms / 1000} seconds`;
}
