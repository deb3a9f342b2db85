/** Defaults of the dispatcher's options, named so that code, docs and tests agree. */

/** Total time an attempt may take, connect to last byte: the platform's 30 s acknowledge limit. */
export const DELIVERY_TIMEOUT_MS = 30_000;
/**
 * Attempts in flight at once, per dispatcher (1.0: 10). A receiver that has just started to hang
 * holds its fair share until its first timeout, then one slot; fifty leave a healthy receiver
 * enough beside a few of them.
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
 * Attempts in flight per registration, over every worker: the default pool. Not smaller, because
 * a single receiver's throughput depends on it — measured on the bench's receiver, the
 * dispatcher's CPU per delivery is 8 % above 1.0's at 50 in flight, 20 % at 20 and 44 % at 10
 * (smaller claims and commits) — and because isolation does not need it: the claim is fair (the
 * registration with the fewest in flight first), and a registration that fails is held to
 * {@link DEFAULT_MAX_IN_FLIGHT_PER_FAILING_WEBHOOK}. Lower it (or raise `concurrency`) to bound
 * what one receiver can take while others are idle.
 */
export const DEFAULT_MAX_IN_FLIGHT_PER_WEBHOOK = 50;
/**
 * Attempts in flight of a registration whose last attempt failed (a timeout, an error answer),
 * until one is delivered: a receiver that hangs holds one slot, not ten.
 */
export const DEFAULT_MAX_IN_FLIGHT_PER_FAILING_WEBHOOK = 1;
/**
 * Slow start: a registration that has not failed may have this many attempts in flight, plus one
 * for each attempt delivered in a row (up to its cap). A new receiver that hangs from the start
 * holds two slots until its first timeout, not its fair share of the pool; a healthy one reaches
 * its cap after its first few dozen deliveries, and keeps it across restarts (the count is stored).
 */
export const INITIAL_IN_FLIGHT_PER_WEBHOOK = 2;
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
/** How long deliveries that are over (`delivered`, `finally_failed`) are kept, with their attempts: 30 days, like the receiver's records. */
export const DEFAULT_DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** The delivery log is pruned at most this often, in the background of the worker. */
export const DELIVERY_PRUNE_INTERVAL_MS = 60 * 60 * 1000;
