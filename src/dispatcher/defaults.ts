/** Defaults of the dispatcher's options, named so that code, docs and tests agree. */

/** Total time an attempt may take, connect to last byte: the platform's 30 s acknowledge limit. */
export const DELIVERY_TIMEOUT_MS = 30_000;
/** Attempts in flight at once, per dispatcher. */
export const DEFAULT_CONCURRENCY = 10;
/** The part of a receiver's answer kept in the delivery log. */
export const RESPONSE_BODY_LIMIT_BYTES = 64 * 1024;
/** Manual retries allowed per window: the platform's "webhook retry 50 / 15 minutes". */
export const MANUAL_RETRY_LIMIT: Readonly<{ max: number; windowMs: number }> = Object.freeze({ max: 50, windowMs: 15 * 60_000 });
/** The SQLite file used when no `database` is given (relative to the working directory). */
export const DEFAULT_DATABASE_FILE = './webhook-dispatch.db';
/**
 * A lease lasts the attempt's timeout plus this margin, so an attempt still running is never
 * taken over by another worker, and one whose worker died is retried soon after.
 */
export const DISPATCH_LEASE_MARGIN_MS = 15_000;
/** The longest the worker sleeps before asking the database again (work from other processes). */
export const MAX_IDLE_MS = 1_000;
/** Sent as `user-agent` with every attempt. */
export const USER_AGENT = 'acct-webhook-dispatcher';
