/** Defaults of the PostgreSQL options, named so that code, docs and tests agree. */

/** The schema that holds the tables when none is given. */
export const DEFAULT_POSTGRES_SCHEMA = 'public';
/** Connections a pool opened from a URL keeps at most (pg's own default). */
export const POSTGRES_POOL_SIZE = 10;
/**
 * How long an operation waits for a connection (to open, or to come free in the pool) before it
 * fails. pg waits forever by default; a receiver must answer within the sender's 30 s instead.
 */
export const POSTGRES_CONNECT_TIMEOUT_MS = 5_000;
/** Frequent statements are prepared once per connection (named statements). */
export const POSTGRES_PREPARED_STATEMENTS = true;
/** The schemes of a PostgreSQL URL. */
export const POSTGRES_PROTOCOLS: ReadonlySet<string> = new Set(['postgres:', 'postgresql:']);
/** The first wait before a lost LISTEN connection is made again; it doubles up to the maximum. */
export const WAKE_UP_RECONNECT_MIN_MS = 250;
/** The longest wait between two tries to make a lost LISTEN connection again. */
export const WAKE_UP_RECONNECT_MAX_MS = 30_000;
