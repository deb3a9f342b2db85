import { list, numberIn, optional, strictObject, union, boolean, type Check } from '../kernel/options-check.js';
import { ConfigurationError } from '../kernel/errors.js';
import { MAX_TIMER_MS } from '../kernel/timers.js';

/** Inbox mode's options (`inbox: true` takes the defaults). */
export interface InboxOptions {
  /** Events whose handlers run at once, per receiver process. @default 10 (DEFAULT_INBOX_CONCURRENCY) */
  concurrency?: number | undefined;
  /**
   * The handlers' budget per run; past it their `signal` aborts and the run counts as failed.
   * No sender waits for it, so it can be long. @default 300_000 (5 minutes)
   */
  handlerTimeoutMs?: number | undefined;
  /**
   * How long a worker's claim on an event holds; after a crash another worker takes the event
   * over when it runs out. Must outlast `handlerTimeoutMs` by at least 5 s.
   * @default handlerTimeoutMs + 30_000
   */
  leaseMs?: number | undefined;
  /**
   * The waits before each retry of a failed run, in milliseconds; its length + 1 is the number of
   * runs before the event is `dead` (kept, and retryable with `inbox.retry(id)`).
   * @default INBOX_RETRY_DELAYS_MS: 1 s, 10 s, 1 min, 5 min, 30 min, 2 h, 6 h (8 runs in about 8.6 h)
   */
  retryDelaysMs?: readonly number[] | undefined;
  /** The longest a worker sleeps before looking for events stored by other processes. @default 1_000 */
  pollIntervalMs?: number | undefined;
  /** How long `close()` waits for running handlers before it aborts them and gives their events back. @default 10_000 */
  closeTimeoutMs?: number | undefined;
}

export const DEFAULT_INBOX_CONCURRENCY = 10;
export const DEFAULT_INBOX_HANDLER_TIMEOUT_MS = 300_000;
/** What a lease adds to the handler budget by default: time to record the outcome. */
export const DEFAULT_INBOX_LEASE_MARGIN_MS = 30_000;
/** The least a lease may add to the handler budget. */
export const MIN_INBOX_LEASE_MARGIN_MS = 5_000;
export const INBOX_RETRY_DELAYS_MS: readonly number[] = [1_000, 10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000];
export const DEFAULT_INBOX_POLL_INTERVAL_MS = 1_000;
export const DEFAULT_INBOX_CLOSE_TIMEOUT_MS = 10_000;

/** Inbox settings after defaults; internal. */
export type InboxSettings = Required<{ [K in keyof InboxOptions]: NonNullable<InboxOptions[K]> }>;

export const inboxShape: Check<boolean | InboxOptions> = union(
  boolean('must be true, false or the inbox options'),
  strictObject({
    concurrency: optional(numberIn(1, 10_000, { integer: true })),
    handlerTimeoutMs: optional(numberIn(1, MAX_TIMER_MS, { integer: true })),
    leaseMs: optional(numberIn(1, Number.MAX_SAFE_INTEGER)),
    retryDelaysMs: optional(list(numberIn(0, MAX_TIMER_MS, { integer: true }), 'must be an array of waits in milliseconds')),
    pollIntervalMs: optional(numberIn(1, MAX_TIMER_MS)),
    closeTimeoutMs: optional(numberIn(0, MAX_TIMER_MS)),
  }),
  'must be true, false or the inbox options',
);

/** Fills in the defaults; refuses a lease that cannot outlast the handler budget. */
export function inboxSettings(options: true | InboxOptions): InboxSettings {
  const given = options === true ? {} : options;
  const handlerTimeoutMs = given.handlerTimeoutMs ?? DEFAULT_INBOX_HANDLER_TIMEOUT_MS;
  const leaseMs = given.leaseMs ?? handlerTimeoutMs + DEFAULT_INBOX_LEASE_MARGIN_MS;
  if (leaseMs < handlerTimeoutMs + MIN_INBOX_LEASE_MARGIN_MS) {
    throw new ConfigurationError({
      option: 'inbox.leaseMs',
      reason: `must outlast inbox.handlerTimeoutMs (${handlerTimeoutMs} ms) by at least ${MIN_INBOX_LEASE_MARGIN_MS} ms, or another worker could take an event over while its handlers still run`,
    });
  }
  return {
    concurrency: given.concurrency ?? DEFAULT_INBOX_CONCURRENCY,
    handlerTimeoutMs,
    leaseMs,
    retryDelaysMs: given.retryDelaysMs ?? INBOX_RETRY_DELAYS_MS,
    pollIntervalMs: given.pollIntervalMs ?? DEFAULT_INBOX_POLL_INTERVAL_MS,
    closeTimeoutMs: given.closeTimeoutMs ?? DEFAULT_INBOX_CLOSE_TIMEOUT_MS,
  };
}
