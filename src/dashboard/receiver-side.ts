import type { WebhookResponse } from '../receiver/answers.js';
import { inboxApi, type Inbox } from '../receiver/inbox.js';
import type { Receiver } from '../receiver/receive.js';
import { eventRecordsOf, type EventRecords } from '../ports/event-records.js';
import type { IdempotencyStore, QuarantineStore } from '../ports/idempotency-store.js';
import { receivedReadsOf, type ReceivedReads } from '../ports/received-reads.js';

/** What the dashboard reads and does on the receiving side. */
export interface ReceiverSide {
  quarantine: QuarantineStore;
  /** The handled events; absent for a store that does not list its records. */
  events: EventRecords | undefined;
  /** Runs a quarantined payload through the handlers again; absent when only the store is known (the CLI). */
  reprocess: ((quarantineId: string) => Promise<WebhookResponse>) | undefined;
  /** The store's inbox (inbox mode keeps events there); absent for a store without one. */
  inbox: Inbox | undefined;
  /** Pages of the inbox and counts per time bucket; absent for a store that does not offer them. */
  reads: ReceivedReads | undefined;
}

/** The receiving side of a receiver: its store's views, reprocessing and the inbox when present. */
export function receiverSideOf(receiver: Receiver): ReceiverSide {
  return {
    ...storeSideOf(receiver.store),
    reprocess: (id) => receiver.reprocess(id),
    inbox: receiver.store.inbox ? receiver.inbox : undefined,
  };
}

/**
 * The receiving side of a store alone (the CLI): no handlers to reprocess with; an inbox event
 * retried here is run by the receiver process that serves the store.
 */
export function storeSideOf(store: IdempotencyStore): ReceiverSide {
  return {
    quarantine: store.quarantine,
    events: eventRecordsOf(store),
    reprocess: undefined,
    inbox: store.inbox ? inboxApi(store, Date.now, undefined) : undefined,
    reads: receivedReadsOf(store),
  };
}
