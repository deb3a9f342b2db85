import { checkOptions, dateOrNumber, numberIn, oneOf, optional, strictObject, string } from '../kernel/options-check.js';
import { ConfigurationError } from '../kernel/errors.js';
import { INBOX_STATUSES, type InboxEvent, type InboxFilter, type InboxPurge, type InboxStats, type InboxStore } from '../ports/inbox.js';
import type { IdempotencyStore } from '../ports/idempotency-store.js';
import { ReceiverError } from './errors.js';
import type { InboxWorker } from './inbox-worker.js';
import { MAX_TIMER_MS } from '../kernel/timers.js';

/** `drain()` gives up after this long by default, so a test never hangs on an event that keeps failing. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;

/**
 * The inbox of a receiver (`receiver.inbox`): what inbox mode stored, and what its worker did.
 * Works on the store's inbox in direct mode too (to look at, retry or purge what an earlier
 * inbox-mode run left); only `drain()` needs inbox mode.
 */
export interface Inbox {
  /**
   * Events, newest first.
   * @example await receiver.inbox.list({ status: 'dead', type: 'invoice.paid', limit: 20 })
   */
  list(filter?: InboxFilter): Promise<InboxEvent[]>;
  get(eventId: string): Promise<InboxEvent | undefined>;
  /**
   * Runs a `dead` event again (or a pending one now), with a fresh count of attempts.
   * @throws ReceiverError `NOT_FOUND` for an unknown id, `NOT_RETRYABLE` for one that is done or running
   */
  retry(eventId: string): Promise<InboxEvent>;
  /**
   * Deletes finished events (`done` or `dead`) received before `before` (default: now); returns
   * how many. Pending and running events cannot be purged.
   */
  purge(options: InboxPurge): Promise<number>;
  /** Counts by status, and the age of the oldest pending event. */
  stats(): Promise<InboxStats>;
  /**
   * Resolves when no event is pending or processing, retries included; for tests. Rejects with
   * `DRAIN_TIMEOUT` after `timeoutMs`, and with `INBOX_CLOSED` when no worker runs (direct mode,
   * or after `close()`).
   * @default timeoutMs 30_000
   */
  drain(options?: { timeoutMs?: number }): Promise<void>;
}

const filterSchema = strictObject({
  status: optional(oneOf(INBOX_STATUSES, `must be one of ${INBOX_STATUSES.join(', ')}`)),
  type: optional(string('must be an event type')),
  limit: optional(numberIn(1, 10_000, { integer: true })),
});
const purgeSchema = strictObject({
  status: oneOf(['done', 'dead'], "must be 'done' or 'dead': pending and running events cannot be purged"),
  before: optional(dateOrNumber('must be a Date or ms since the epoch')),
});
const drainSchema = strictObject({ timeoutMs: optional(numberIn(1, MAX_TIMER_MS)) });

/** The inbox API over a store's inbox; `worker` is there in inbox mode. */
export function inboxApi(store: IdempotencyStore, clock: () => number, worker: InboxWorker | undefined): Inbox {
  const inbox = (): InboxStore => {
    if (!store.inbox) throw new ConfigurationError({ option: 'store', reason: 'has no inbox: use sqliteStore, postgresStore or memoryStore' });
    return store.inbox;
  };
  return {
    list: async (filter = {}) => inbox().list(checkOptions(filterSchema, filter, 'inbox.list')),
    get: async (eventId) => inbox().get(eventId),
    async retry(eventId) {
      const retried = await inbox().retry(eventId, clock());
      if (retried) {
        worker?.wake();
        return retried;
      }
      const current = await inbox().get(eventId);
      if (!current) throw new ReceiverError('NOT_FOUND', `No inbox event ${eventId}`, { event_id: eventId });
      throw new ReceiverError('NOT_RETRYABLE', `Inbox event ${eventId} is ${current.status}; only dead or pending events can be retried`, {
        event_id: eventId,
        status: current.status,
      });
    },
    async purge(options) {
      const { status, before } = checkOptions(purgeSchema, options, 'inbox.purge');
      const until = before === undefined ? clock() : before instanceof Date ? before.getTime() : before;
      return inbox().purge(status, until);
    },
    stats: async () => inbox().stats(clock()),
    async drain(options = {}) {
      const { timeoutMs = DEFAULT_DRAIN_TIMEOUT_MS } = checkOptions(drainSchema, options, 'inbox.drain');
      if (!worker) throw new ReceiverError('INBOX_CLOSED', 'This receiver is not in inbox mode; nothing runs the inbox');
      await worker.drain(timeoutMs);
    },
  };
}
