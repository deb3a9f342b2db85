import type { EventType } from '../events/catalog.js';
import type { AttemptErrorKind, DeliveryStatus, WebhookStatus } from './records.js';

/*
 * The dispatcher's persistence, behind one interface so that SQLite (built in) and PostgreSQL
 * (its own issue) are interchangeable. Every method is async; an implementation may be
 * synchronous inside. Times are milliseconds since the epoch from the dispatcher's clock; the
 * storage never reads a clock of its own.
 */

export interface StoredWebhook {
  id: string;
  url: string;
  /** Event types and patterns as registered. */
  events: string[];
  headers: Record<string, string>;
  status: WebhookStatus;
  secret: string;
  created_at: number;
  updated_at: number;
}

export interface WebhookChanges {
  url?: string;
  events?: string[];
  headers?: Record<string, string>;
  status?: WebhookStatus;
  secret?: string;
}

export interface StoredEvent {
  id: string;
  type: EventType;
  /** The exact JSON text sent to every webhook; stored once per event. */
  payload: string;
  correlation_id: string;
  test: boolean;
  created_at: number;
}

export interface NewDelivery {
  id: string;
  webhook_id: string;
  next_attempt_at: number;
  /** Set when the creator sends the first attempt itself (`sendTest`), so no worker claims it. */
  lease?: Lease;
}

export interface Lease {
  owner: string;
  until: number;
}

export type InsertEventResult = { inserted: true; deliveries: number } | { inserted: false; existing: StoredEvent };

export interface StoredDelivery {
  id: string;
  event_id: string;
  event_type: EventType;
  webhook_id: string;
  correlation_id: string;
  status: DeliveryStatus;
  attempt_count: number;
  automatic_attempt_count: number;
  /** Due time of the next automatic attempt; while leased, the lease's end. */
  next_attempt_at: number | null;
  lease_owner: string | null;
  lease_until: number | null;
  test: boolean;
  created_at: number;
  updated_at: number;
}

/** Everything one attempt needs, read in one go. */
export interface DeliveryJob {
  delivery: StoredDelivery;
  event: StoredEvent;
  webhook: Pick<StoredWebhook, 'id' | 'url' | 'secret' | 'headers'>;
}

export interface ClaimRequest {
  now: number;
  limit: number;
  lease: Lease;
}

/** An attempt as the sender produced it; the storage adds the attempt number and the payload. */
export interface NewAttempt {
  id: string;
  delivery_id: string;
  webhook_id: string;
  url: string;
  event_id: string;
  event_type: EventType;
  attempted_at: number;
  response_status: number | null;
  response_time_ms: number;
  receiver_ip: string | null;
  correlation_id: string;
  response_body: string | null;
  response_body_truncated: boolean;
  error_kind: AttemptErrorKind | null;
  error_message: string | null;
  manual: boolean;
  test: boolean;
  /** The body sent: the event's payload. Not stored again; echoed in the recorded attempt. */
  request_payload: string;
}

export interface StoredAttempt extends NewAttempt {
  attempt_number: number;
}

/** The delivery's state after an attempt. */
export interface DeliveryState {
  status: DeliveryStatus;
  automatic_attempt_count: number;
  next_attempt_at: number | null;
  lease_owner: string | null;
  lease_until: number | null;
}

/**
 * Decides the delivery's next state from its current one. The storage calls it synchronously
 * inside the transaction that records the attempt, so the decision sees the row as it is then
 * (another worker's lease, a manual success that came first).
 */
export type DeliveryTransition = (current: StoredDelivery) => DeliveryState;

export interface RecordedAttempt {
  attempt: StoredAttempt;
  delivery: StoredDelivery;
}

export interface DeliveryQuery {
  status?: DeliveryStatus;
  type?: EventType;
  webhookId?: string;
  /** Deliveries created at or after (ms). */
  since?: number;
  /** Deliveries created before (ms). */
  until?: number;
  limit: number;
  offset: number;
}

export interface AttemptQuery {
  status?: DeliveryStatus;
  type?: EventType;
  webhookId?: string;
  /** Attempts made at or after (ms). */
  since?: number;
  /** Attempts made before (ms). */
  until?: number;
}

export interface ExportRow {
  attempt: StoredAttempt;
  delivery_status: DeliveryStatus;
  /** Opaque position for the next page. */
  cursor: number;
}

export interface DispatchStorage {
  /** Creates or migrates the schema; idempotent. Called once before any other method. */
  init(): Promise<void>;
  /** Releases what the storage opened itself. */
  close(): Promise<void>;

  insertWebhook(webhook: StoredWebhook): Promise<void>;
  /** A registration that exists and is not deleted. */
  getWebhook(id: string): Promise<StoredWebhook | undefined>;
  /** All registrations that are not deleted, oldest first. */
  listWebhooks(): Promise<StoredWebhook[]>;
  updateWebhook(id: string, changes: WebhookChanges, now: number): Promise<StoredWebhook | undefined>;
  /**
   * Deletes a registration (its log stays) and ends its pending deliveries as `finally_failed`.
   * Returns false when there was nothing to delete.
   */
  deleteWebhook(id: string, now: number): Promise<boolean>;

  /**
   * Stores an event and its deliveries in one transaction. Deliveries whose webhook is no longer
   * active are skipped. An event id that exists already inserts nothing and returns the stored
   * event.
   */
  insertEvent(event: StoredEvent, deliveries: readonly NewDelivery[]): Promise<InsertEventResult>;

  /**
   * Leases up to `limit` deliveries that are `retrying`, due (`next_attempt_at <= now`, an expired
   * lease included) and whose webhook is active, earliest first, in one transaction: two
   * processes never lease the same delivery at the same time.
   */
  claimDue(request: ClaimRequest): Promise<DeliveryJob[]>;
  /**
   * The earliest `next_attempt_at` of any `retrying` delivery; `null` when none. An implementation
   * may leave out deliveries no claim could take (those of a disabled webhook).
   */
  nextDueAt(): Promise<number | null>;
  /** One delivery with its event and webhook, leased or not (for manual retries). */
  loadJob(deliveryId: string): Promise<DeliveryJob | undefined>;
  /**
   * In one transaction: numbers the attempt (1 + attempts so far), inserts it, and sets the
   * delivery's state to `transition(current)` with `attempt_count` + 1. Resolves once committed.
   */
  recordAttempt(attempt: NewAttempt, transition: DeliveryTransition): Promise<RecordedAttempt>;

  getDelivery(id: string): Promise<StoredDelivery | undefined>;
  /** Newest first. */
  listDeliveries(query: DeliveryQuery): Promise<StoredDelivery[]>;
  /** The attempts of one delivery, oldest first. */
  listAttempts(deliveryId: string): Promise<StoredAttempt[]>;
  /** A page of attempts in the order they were recorded, after `cursor` (0 for the start). */
  exportAttempts(query: AttemptQuery, cursor: number, limit: number): Promise<ExportRow[]>;
}

/** The storage once it is initialised; rejects after the dispatcher was closed. */
export type StorageAccess = () => Promise<DispatchStorage>;
