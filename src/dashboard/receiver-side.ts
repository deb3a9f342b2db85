import type { WebhookResponse } from '../receiver/answers.js';
import type { Receiver } from '../receiver/receive.js';
import { eventRecordsOf, type EventRecords } from '../store/event-records.js';
import type { IdempotencyStore, QuarantineStore } from '../store/types.js';

/** An inbox event as the dashboard shows it: the fields of the receiver's inbox records it reads. */
export interface InboxEventView {
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  received_at: string;
  next_attempt_at: string | null;
  completed_at: string | null;
  last_error: { code: string; message: string } | null;
  raw_body: Uint8Array;
}

/** The receiver's inbox (inbox mode), as far as the dashboard uses it. */
export interface InboxView {
  list(filter: { status?: string; type?: string; limit?: number }): Promise<readonly InboxEventView[]>;
  get(id: string): Promise<InboxEventView | undefined | null>;
  retry(id: string): Promise<unknown>;
  stats(): Promise<Record<string, unknown>>;
}

/** What the dashboard reads and does on the receiving side. */
export interface ReceiverSide {
  quarantine: QuarantineStore;
  /** The handled events; absent for a store that does not list its records. */
  events: EventRecords | undefined;
  /** Runs a quarantined payload through the handlers again; absent when only the store is known (the CLI). */
  reprocess: ((quarantineId: string) => Promise<WebhookResponse>) | undefined;
  /** Present when the receiver runs in inbox mode. */
  inbox: InboxView | undefined;
}

/** The receiving side of a receiver: its store's views, reprocessing and the inbox when present. */
export function receiverSideOf(receiver: Receiver): ReceiverSide {
  return {
    ...storeSideOf(receiver.store),
    reprocess: (id) => receiver.reprocess(id),
    inbox: inboxOf(receiver),
  };
}

/** The read-only receiving side of a store alone (no handlers to reprocess with). */
export function storeSideOf(store: IdempotencyStore): ReceiverSide {
  return { quarantine: store.quarantine, events: eventRecordsOf(store), reprocess: undefined, inbox: undefined };
}

function inboxOf(receiver: Receiver): InboxView | undefined {
  const inbox = (receiver as { inbox?: unknown }).inbox;
  if (typeof inbox !== 'object' || inbox === null) return undefined;
  const methods = ['list', 'get', 'retry', 'stats'] as const;
  return methods.every((name) => typeof (inbox as Record<string, unknown>)[name] === 'function') ? (inbox as InboxView) : undefined;
}
