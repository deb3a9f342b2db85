/** What the X-RateLimit-* headers of an answer said. */
export interface RateLimit {
  /** Requests allowed in the window (`X-RateLimit-Limit`). */
  limit: number;
  /** Requests left in the window (`X-RateLimit-Remaining`). */
  remaining: number;
  /** When the window ends (`X-RateLimit-Reset`, Unix time), as ISO 8601. */
  reset_at: string;
}

/** The rate limit an answer reports; `null` unless all three headers are numbers. */
export function rateLimitOf(headers: Headers): RateLimit | null {
  const limit = wholeNumber(headers.get('x-ratelimit-limit'));
  const remaining = wholeNumber(headers.get('x-ratelimit-remaining'));
  const reset = wholeNumber(headers.get('x-ratelimit-reset'));
  if (limit === null || remaining === null || reset === null) return null;
  return { limit, remaining, reset_at: new Date(reset * 1000).toISOString() };
}

/**
 * The wait a 429 asks for, in milliseconds: `Retry-After` (seconds, or an HTTP date), else the
 * envelope's `details.retry_after` (seconds); `null` when neither says.
 */
export function retryAfterOf(headers: Headers, details: Record<string, unknown> | undefined, now: number): number | null {
  const header = headers.get('retry-after')?.trim();
  if (header !== undefined && header !== '') {
    const seconds = Number(header);
    if (/^\d+(\.\d+)?$/.test(header) && Number.isFinite(seconds)) return seconds * 1000;
    const date = Date.parse(header);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  const fromBody = details?.retry_after;
  return typeof fromBody === 'number' && Number.isFinite(fromBody) && fromBody >= 0 ? fromBody * 1000 : null;
}

function wholeNumber(value: string | null): number | null {
  if (value === null || !/^\d+$/.test(value.trim())) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : null;
}
