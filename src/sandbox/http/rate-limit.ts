import { SandboxError } from '../errors.js';

/** The document's request limits per minute by plan (Enterprise is "individual": not offered). */
export const PLAN_LIMITS_PER_MINUTE = { starter: 60, pro: 300, business: 600 } as const;
/** A plan of the document's request-limit table: `starter` (60 a minute), `pro` (300), `business` (600). */
export type SandboxPlan = keyof typeof PLAN_LIMITS_PER_MINUTE;

/** The document's stricter limit for webhook retries: 50 per 15 minutes. */
export const WEBHOOK_RETRY_LIMIT = { max: 50, windowMs: 15 * 60_000, window: '15 minutes' } as const;

export interface WindowLimit {
  max: number;
  windowMs: number;
  /** How `details.window` names the window. */
  window: string;
}

/** What the X-RateLimit headers say after a request was counted. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix time in seconds when the window ends. */
  reset: number;
}

/**
 * A fixed window on the sandbox clock that opens with the first request after the last one
 * closed. Advancing the clock past its end empties it, so a test reaches a reset without
 * waiting.
 */
export class WindowCounter {
  private windowStart = -Infinity;
  private count = 0;

  constructor(
    private readonly limit: WindowLimit,
    private readonly clock: () => number,
  ) {}

  /** Counts a request. @throws SandboxError RATE_LIMIT_EXCEEDED (with the headers' state) past the limit */
  take(): RateLimitState {
    const now = this.clock();
    if (now >= this.windowStart + this.limit.windowMs) {
      this.windowStart = now;
      this.count = 0;
    }
    const resetMs = this.windowStart + this.limit.windowMs;
    const state = { limit: this.limit.max, remaining: Math.max(0, this.limit.max - this.count - 1), reset: Math.ceil(resetMs / 1000) };
    if (this.count >= this.limit.max) {
      const retryAfter = Math.max(1, Math.ceil((resetMs - now) / 1000));
      throw Object.assign(
        new SandboxError('RATE_LIMIT_EXCEEDED', `At most ${this.limit.max} requests per ${this.limit.window}; retry in ${retryAfter} s`, {
          retry_after: retryAfter,
          limit: this.limit.max,
          window: this.limit.window,
          reset_at: new Date(resetMs).toISOString(),
        }),
        { rateLimit: { ...state, remaining: 0 } },
      );
    }
    this.count += 1;
    return state;
  }
}

/** The rate-limit state a refused request carries, for its headers. */
export function rateLimitOf(error: unknown): RateLimitState | undefined {
  return (error as { rateLimit?: RateLimitState }).rateLimit;
}

/** `X-RateLimit-Limit`, `-Remaining`, `-Reset`: on every response. */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return { 'x-ratelimit-limit': String(state.limit), 'x-ratelimit-remaining': String(state.remaining), 'x-ratelimit-reset': String(state.reset) };
}
