import type { InboxStats } from '../ports/inbox.js';
import type { ReceiverSide } from './receiver-side.js';

/**
 * What the receiving side holds, counted once for every page that shows it (the overview, Received
 * events, the Inbox), so that their numbers agree: direct mode keeps its claims as idempotency
 * records, inbox mode keeps its events in the inbox, and an event is in one or the other.
 */
export interface ReceivedTotals {
  /** Handled events: direct-mode records completed, plus inbox events done and not skipped as stale. */
  handled: number;
  /** Direct mode; absent for a store that does not list its records. */
  direct: { handled: number; inProgressOrFailed: number } | undefined;
  /** Inbox mode (or what an earlier inbox-mode run left); absent for a store without an inbox. */
  inbox: (Omit<InboxStats, 'oldest_pending_age_ms'> & { handled: number; stale: number }) | undefined;
  quarantined: number;
}

export async function receivedTotals(side: ReceiverSide): Promise<ReceivedTotals> {
  const [handled, open, stats, stale, quarantined] = await Promise.all([
    side.events?.count('completed'),
    side.events?.count('processing'),
    side.inbox?.stats(),
    side.inbox && side.reads ? side.reads.inboxCount({ status: 'done', stale: true }) : 0,
    side.reads ? side.reads.quarantineCount() : side.quarantine.list().then((entries) => entries.length),
  ]);
  const direct = handled === undefined || open === undefined ? undefined : { handled, inProgressOrFailed: open };
  const inbox = stats === undefined ? undefined : { ...stats, handled: stats.done - stale, stale };
  return { handled: (direct?.handled ?? 0) + (inbox?.handled ?? 0), direct, inbox, quarantined };
}
