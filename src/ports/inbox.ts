import type { StoreAtomicEffect } from './atomic-effect.js';
import type { WakeUps } from './wake-ups.js';
import type { ObjectVersion } from './versions.js';

/**
 * Where an event stands in the inbox: `pending` (waiting for a worker, maybe for a retry's due
 * time), `processing` (a worker holds its lease), `done` (its handlers succeeded, or it was
 * skipped as stale), `dead` (its handlers failed on every attempt: kept and retryable).
 */
export type InboxStatus = 'pending' | 'processing' | 'done' | 'dead';

export const INBOX_STATUSES: readonly InboxStatus[] = ['pending', 'processing', 'done', 'dead'];

/** One event in the inbox. A record, so spelled like the platform's records (snake_case, ISO times). */
export interface InboxEvent {
  event_id: string;
  event_type: string;
  status: InboxStatus;
  /** Handler runs started so far (a run given back by a closing worker does not count). */
  attempts: number;
  /** When the delivery was stored. */
  received_at: string;
  /** The event's own `created`. */
  created: string;
  /** When a pending event is due (a retry waits for it). */
  next_attempt_at: string | null;
  /** When its handlers succeeded (or it was skipped as stale). */
  completed_at: string | null;
  /**
   * The last run's failure; null once a run succeeds. `code` is the receiver's (`HANDLER_FAILED`,
   * `HANDLER_TIMEOUT` …); for `HANDLER_FAILED`, `message` is what the handler threw, its class
   * and message (`TypeError: customer cus_1 not found`): one line, at most 1 024 bytes of UTF-8.
   */
  last_error: { code: string; message: string } | null;
  /** The ordering guard's key (`invoice:inv_…`), when the guard is on. */
  ordering_key: string | null;
  /** True when the ordering guard found a newer event of its object handled before it ran. */
  stale: boolean;
  /** The headers that matter (timestamp, content type, user agent, correlation); never the signature. */
  headers: Record<string, string>;
  /** The bytes exactly as received. */
  raw_body: Buffer;
}

/** What the receiver stores for a verified, valid delivery in inbox mode. */
export interface InboxInput {
  eventId: string;
  eventType: string;
  /** The event's `created`, ms since the epoch. */
  created: number;
  rawBody: Buffer;
  headers: Record<string, string>;
  /** Which secret verified the delivery, and how (for the handler context). */
  verified: StoredVerification;
  receivedAt: number;
  /** Set with the ordering guard: its object and place, so one object's events run one at a time, in order. */
  version: ObjectVersion | null;
}

/**
 * The answer of {@link InboxStore.enqueue}: stored now, or already known (`requeued` when a `dead`
 * event came again: the sender's manual redelivery puts it back to `pending`).
 */
export type EnqueueResult = { status: 'queued' } | { status: 'duplicate'; requeued: boolean };

/** How a stored delivery was verified. */
export interface StoredVerification {
  secretIndex: number;
  signatureScheme: 'v1' | 'v1a' | 'legacy';
  /** Which headers verified it. @default 'svc' when absent (every row written before Standard Webhooks) */
  scheme?: 'svc' | 'standard-webhooks' | undefined;
}

/** An event a worker has claimed: its lease token and what the handlers need. */
export interface ClaimedInboxEvent {
  eventId: string;
  token: string;
  rawBody: Buffer;
  verified: StoredVerification;
  receivedAt: number;
  /** This run's number, from 1. */
  attempt: number;
  version: ObjectVersion | null;
}

/** How a finished run is recorded. */
export interface InboxCompletion {
  /** The handlers' own writes, committed with "done" (stores that offer atomic effects). */
  effects?: readonly StoreAtomicEffect[];
  /** How long asynchronous effects may take (the rest of the handler budget), in milliseconds. */
  budgetMs?: number | undefined;
  /** With the ordering guard: kept as the object's newest when it is. */
  version?: ObjectVersion | null;
  stale?: boolean;
}

/** How a failed run is recorded: back to pending until `retryAt`, or `dead` when `retryAt` is null. */
export interface InboxFailure {
  code: string;
  message: string;
  retryAt: number | null;
}

/** Which inbox events `inbox.list()` returns. */
export interface InboxFilter {
  status?: InboxStatus | undefined;
  /** An event type. */
  type?: string | undefined;
  /** @default 100 */
  limit?: number | undefined;
}

/** What `inbox.purge()` deletes. */
export interface InboxPurge {
  /** Only finished events can be purged: `done` or `dead`. */
  status: 'done' | 'dead';
  /** Only events received before this time. @default now */
  before?: Date | number | undefined;
}

/** Counts by status and the age of the oldest pending event. */
export interface InboxStats {
  pending: number;
  processing: number;
  done: number;
  dead: number;
  /** When the oldest pending event was received; null when nothing is pending. */
  oldest_pending_at: string | null;
  /** Milliseconds since then, by the receiver's clock; null when nothing is pending. */
  oldest_pending_age_ms: number | null;
}

/**
 * The durable inbox of a store (`store.inbox`): events stored before they are acknowledged and
 * run by a background worker. `sqliteStore`, `postgresStore` and `memoryStore` offer it.
 */
export interface InboxStore {
  /**
   * Wake-ups across processes: every event stored notifies the inbox workers on the same
   * database when it commits (PostgreSQL). Absent: workers in other processes poll.
   */
  readonly wakeUps?: WakeUps;
  /** Stores an event in the same write that dedupes its id (also against direct-mode records). */
  enqueue(input: InboxInput): Promise<EnqueueResult>;
  /**
   * Claims up to `limit` due events (pending and due, or processing with an expired lease), at
   * most one per object at a time and each object's oldest first.
   */
  claim(now: number, leaseMs: number, limit: number): Promise<ClaimedInboxEvent[]>;
  /** Marks a claimed event done (false when its lease was lost). */
  complete(eventId: string, token: string, now: number, completion?: InboxCompletion): Promise<boolean>;
  fail(eventId: string, token: string, failure: InboxFailure): Promise<boolean>;
  /** Gives a claim back without counting the run (a closing worker). */
  release(eventId: string, token: string): Promise<boolean>;
  /** When the next pending event is due, or a lease runs out; null when nothing waits. */
  nextDueAt(): Promise<number | null>;
  list(filter?: InboxFilter): Promise<InboxEvent[]>;
  get(eventId: string): Promise<InboxEvent | undefined>;
  /** Puts a `dead` (or waiting `pending`) event back to run now, with a fresh count of attempts. */
  retry(eventId: string, now: number): Promise<InboxEvent | undefined>;
  /** Deletes finished events; returns how many. */
  purge(status: 'done' | 'dead', before: number): Promise<number>;
  stats(now: number): Promise<InboxStats>;
}
