/** Defaults of the dispatcher's options, named so that code, docs and tests agree. */

/** Total time an attempt may take, connect to last byte: the platform's 30 s acknowledge limit. */
export const DELIVERY_TIMEOUT_MS = 30_000;
/**
 * Attempts in flight at once, per dispatcher: a healthy receiver's full share
 * ({@link DEFAULT_MAX_IN_FLIGHT_PER_WEBHOOK}) and more beside receivers that have just started to
 * hang (each holds its share until its first timeout, then one slot).
 */
export const DEFAULT_CONCURRENCY = 50;
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
/**
 * Attempts in flight per registration, over every worker: two fifths of the default pool, so no
 * single receiver can take all of it, and high enough that one healthy receiver keeps the pool's
 * throughput (measured: the dispatcher's CPU per delivery at 20 in flight is the same as at 50;
 * at 10 it is 40 % higher, each claim taking fewer). A receiver that fails is held to
 * {@link DEFAULT_MAX_IN_FLIGHT_PER_FAILING_WEBHOOK}.
 */
export const DEFAULT_MAX_IN_FLIGHT_PER_WEBHOOK = 20;
/**
 * Attempts in flight of a registration whose last attempt failed (a timeout, an error answer),
 * until one is delivered: a receiver that hangs holds one slot, not ten.
 */
export const DEFAULT_MAX_IN_FLIGHT_PER_FAILING_WEBHOOK = 1;
/**
 * A registration failing without a break for this long (first failed attempt of the streak to
 * the latest) is disabled: 72 h, two full retry windows (2 × 34.6 h) — a receiver that recovers
 * within one delivery's whole schedule is never disabled — and longer than a weekend's outage
 * (Friday 18:00 to Monday 09:00 is 63 h). Shorter than Svix's 5 days because nothing is lost:
 * events for a disabled registration are recorded and can be replayed when it is enabled again.
 */
export const DISABLE_FAILING_AFTER_MS = 72 * 60 * 60_000;
/** Warnings before the disable, as shares of the stretch: at 36 h and at 64.8 h of failure by default. */
export const FAILURE_WARNINGS: readonly number[] = Object.freeze([0.5, 0.9]);
