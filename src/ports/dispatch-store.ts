import type { EventType } from '../events/catalog.js';
import type { DELIVERY_STATE_FIELDS, StoredAttempt, StoredDelivery } from './delivery-fields.js';
import type { DeliveryStatus, WebhookStatus } from './dispatch-statuses.js';
import type { WakeUps } from './wake-ups.js';
import type { BusinessErasure } from './retention.js';
import type { FeedCountQuery, FeedEvent, FeedQuery } from './event-feed.js';

/*
 * The dispatcher's persistence, behind one interface so that SQLite (sqliteDispatchStore) and
 * PostgreSQL (postgresDispatchStore) — or a backend of your own — are interchangeable. Every
 * method is async; an implementation may be synchronous inside. Times are milliseconds since the
 * epoch from the dispatcher's clock; a store never reads a clock of its own. The decisions (which
 * number an attempt gets, what state a delivery is in next) are the dispatcher's: a store keeps
 * what it is told, in one transaction.
 */

export type { StoredAttempt, StoredDelivery } from './delivery-fields.js';

export type { StoredWebhook, WebhookHealth } from './webhook-fields.js';
import type { StoredWebhook, WebhookHealth } from './webhook-fields.js';
import type { WebhookStateCounts } from './webhook-state-counts.js';

/** The fields of a registration to change; the others stay. */
export type WebhookChanges = Partial<Omit<StoredWebhook, 'id' | 'created_at' | 'updated_at'>>;

/** Which registrations `pageWebhooks` returns; every criterion given must hold. */
export interface WebhookPageQuery {
  /** Of this business only (its own registrations, not the platform-wide ones). */
  business_id?: string;
  status?: WebhookStatus;
  /** The position after which the page starts (0 for the first page). */
  after: number;
  limit: number;
}

/** One page of registrations and the position of the next one. */
export interface WebhookPageRows {
  webhooks: StoredWebhook[];
  /** The position to pass as `after` for the next page; `null` when this one is the last. */
  next: number | null;
}

/** What a registration is doing now, counted by the store. */
export interface WebhookActivity {
  /** Attempts in flight (deliveries under a live lease). */
  in_flight: number;
  /** Events recorded as not sent while the registration was disabled, waiting for a replay. */
  skipped_events: number;
}

/** An event as a store keeps it: the exact JSON sent, once for all its deliveries. */
export interface StoredEvent {
  id: string;
  type: EventType;
  /** The exact JSON text sent to every webhook; stored once per event. */
  payload: string;
  correlation_id: string;
  test: boolean;
  created_at: number;
}

/** A delivery to insert with its event: which webhook, when its first attempt is due. */
export interface NewDelivery {
  id: string;
  webhook_id: string;
  next_attempt_at: number;
  /** Set when the creator sends the first attempt itself (`sendTest`), so no worker claims it. */
  lease?: Lease;
}

/** A worker's claim on a delivery: who holds it and until when (ms). */
export interface Lease {
  owner: string;
  until: number;
}

/** Whether an event was stored, or its id was taken already (and by what). */
export type InsertEventResult = { inserted: true; deliveries: number } | { inserted: false; existing: StoredEvent };

/** Everything one attempt needs, read in one go. */
export interface DeliveryJob {
  delivery: StoredDelivery;
  event: StoredEvent;
  /** What an attempt is sent to and signed with: the secrets, the scheme, a rotation's grace. */
  webhook: Pick<StoredWebhook, 'id' | 'url' | 'secret' | 'headers' | 'scheme' | 'previous_secret' | 'previous_secret_expires_at'>;
}

/** What `claimDue` takes: now, how many at most, the lease to put on them, and the per-registration caps. */
export interface ClaimRequest {
  now: number;
  limit: number;
  lease: Lease;
  /**
   * At most this many attempts in flight per registration, counted over every worker (live
   * leases in the database); absent for no cap.
   */
  maxInFlight?: number;
  /** The cap of a registration whose last attempt failed (`failure_streak > 0`); absent for `maxInFlight`. */
  maxInFlightWhileFailing?: number;
  /**
   * Slow start: a registration that has not failed may have `initialInFlight + delivered_streak`
   * attempts in flight (at most `maxInFlight`), so one that has not answered yet cannot take a
   * large share of the slots. Absent: no slow start.
   */
  initialInFlight?: number;
}

/** An attempt as the sender produced it, before it is numbered. */
export type NewAttempt = Omit<StoredAttempt, 'attempt_number'>;

/** The fields of a delivery that an attempt changes. */
export type DeliveryState = Pick<StoredDelivery, (typeof DELIVERY_STATE_FIELDS)[number]>;

/** An attempt as stored, its delivery as the attempt left it, and its registration's health after it. */
export interface RecordedAttempt {
  attempt: StoredAttempt;
  delivery: StoredDelivery;
  health: WebhookHealth;
  /** What the attempt made worth telling an operator (a warning, the disable); stored nowhere. */
  alerts: readonly HealthAlert[];
  /**
   * How many delivered attempts in a row the health counts at most (the dispatcher's
   * `countDeliveredUpTo`). A store that adds a batch's delivered attempts to the streak as stored,
   * rather than writing the health it decided from, caps the sum here; absent: such a store writes
   * the health as decided, under the registration's lock.
   */
  deliveredStreakCap?: number;
}

/**
 * What to store for an attempt, given its delivery and its registration's health as they are
 * inside the store's transaction: the numbered attempt, the delivery's next state and the
 * registration's next health. The dispatcher writes it; a store calls it synchronously, with the
 * delivery's row locked against other records, and with the registration's health locked too
 * whenever the result changes it (a result that leaves the health as it was may be decided from the
 * health as last committed, and one that only grows the delivered streak may be stored as that
 * growth added to the streak as committed, capped at `deliveredStreakCap`), and stores what it
 * returns (a health whose status became `disabled` takes the registration's pending deliveries out
 * of the queue, as `updateWebhook` does). It must depend on its arguments alone: a store may call
 * it again for the same record (a transaction run again, or PostgreSQL deciding again from the
 * health read under its lock).
 */
export type AttemptRecording = (current: StoredDelivery, health: WebhookHealth) => RecordedAttempt;

/** Which deliveries `listDeliveries` returns; every criterion given must hold. */
export interface DeliveryQuery {
  status?: DeliveryStatus;
  /** The delivery's event type is one of these. */
  event_types?: readonly EventType[];
  webhook_id?: string;
  event_id?: string;
  correlation_id?: string;
  /** The latest attempt's response status (0 for no answer) is within [min, max]. */
  response_status_range?: readonly [number, number];
  /** Created at or after (ms, whole). */
  created_after?: number;
  /** Created before (ms, whole). */
  created_before?: number;
  limit: number;
  offset: number;
}

/** Which deliveries `countDeliveries` counts: the criteria of {@link DeliveryQuery}, without a page. */
export type DeliveryCountQuery = Omit<DeliveryQuery, 'limit' | 'offset'>;

/** Which attempts `exportAttempts` returns: by their delivery (as in {@link DeliveryQuery}) and their time. */
export interface AttemptQuery extends Omit<DeliveryQuery, 'limit' | 'offset'> {
  /** Attempts made at or after (ms, whole). */
  attempted_after?: number;
  /** Attempts made before (ms, whole). */
  attempted_before?: number;
}

/** One attempt of an export page, with its delivery's status and the cursor for the next page. */
export interface ExportRow {
  attempt: StoredAttempt;
  delivery_status: DeliveryStatus;
  /** Opaque position for the next page. */
  cursor: number;
}

/**
 * Where the dispatcher keeps registrations, events, deliveries and the delivery log:
 * `sqliteDispatchStore` and `postgresDispatchStore` implement it; implement it yourself for
 * another database (the contract suite in this repository's tests shows what each method must do).
 */
export interface DispatchStore {
  /**
   * Resolves when the store is usable (schema migrated, connection made); idempotent, and tried
   * again after a failure. Every other method waits for it by itself.
   */
  ready(): Promise<void>;
  /** Releases what the store opened itself. */
  close(): Promise<void>;
  /**
   * Wake-ups across processes: every `insertEvent` that queued a delivery notifies the workers on
   * the same database when it commits (PostgreSQL). Absent: workers in other processes poll.
   */
  readonly wakeUps?: WakeUps;

  /**
   * Deletes at most `limit` deliveries that are over (`delivered`, `finally_failed`) and last
   * changed before `before`, with their attempts, and then the events of theirs that no
   * delivery or skipped record refers to any more. Never a delivery still retrying. One short
   * statement or transaction per call; returns how many deliveries went. Optional: a store
   * without it keeps its log.
   */
  pruneDeliveries?(before: number, limit: number): Promise<number>;
  /**
   * Replaces by `PAYLOAD_REMOVED` (retention.ts) the payloads of at most `limit` events created before
   * `before` whose deliveries are all over and last changed before `before` (none skipped),
   * and the response bodies of those deliveries' attempts; metadata stays. Returns how many events.
   */
  removePayloads?(before: number, limit: number, now: number): Promise<number>;
  /**
   * Replaces every stored payload of one business (`business_id`) by `PAYLOAD_REMOVED` (retention.ts):
   * its events' payloads and their attempts' response bodies; its deliveries still retrying are
   * ended (`finally_failed`) and its skipped records dropped, as nothing is left to send.
   */
  eraseBusiness?(businessId: string, now: number): Promise<BusinessErasure>;

  /**
   * The events feed: the stored events of one business by position ascending (see
   * `event-feed.ts`), through an index on (business_id, position). Optional: a store without it
   * has no feed (`dispatcher.events` answers `EVENTS_UNSUPPORTED`).
   */
  listEvents?(query: FeedQuery): Promise<FeedEvent[]>;
  /** How many events of one business the criteria select. */
  countEvents?(query: FeedCountQuery): Promise<number>;
  /** One stored event with its business and position. */
  getEvent?(id: string): Promise<FeedEvent | undefined>;

  insertWebhook(webhook: StoredWebhook): Promise<void>;
  /** A registration that exists and is not deleted. */
  getWebhook(id: string): Promise<StoredWebhook | undefined>;
  /** All registrations that are not deleted, oldest first. */
  listWebhooks(): Promise<StoredWebhook[]>;
  /**
   * The registrations (not deleted) an event of `businessId` goes to, oldest first: the
   * business's own and those of scope `platform` or `all`. An indexed lookup: its cost depends on
   * how many it returns, not on how many registrations exist.
   */
  webhooksOfBusiness(businessId: string): Promise<StoredWebhook[]>;
  /**
   * A page of registrations (not deleted) in the order they were inserted, after position
   * `after` (0 for the start); `next` is the position to continue from, `null` after the last.
   */
  pageWebhooks(query: WebhookPageQuery): Promise<WebhookPageRows>;
  /**
   * The registrations per state, counted by the database (the metrics' gauge, the dashboard's
   * card): its cost does not grow with their rows read. Optional: without it, the Dispatcher
   * counts what `listWebhooks` returns.
   */
  countWebhooks?(): Promise<WebhookStateCounts>;
  /** Changes a registration; a new status applies to its pending deliveries in the same transaction. */
  updateWebhook(id: string, changes: WebhookChanges, now: number): Promise<StoredWebhook | undefined>;
  /**
   * Deletes a registration (its log stays) and ends its pending deliveries as `finally_failed`.
   * Returns false when there was nothing to delete.
   */
  deleteWebhook(id: string, now: number): Promise<boolean>;

  /**
   * Stores an event and its deliveries in one transaction. Deliveries to a deleted webhook are
   * skipped. An event id that exists already inserts nothing and returns the stored event.
   * `skippedFor` names registrations (disabled ones) for which the event is recorded as not sent
   * (see `replaySkipped`).
   */
  insertEvent(event: StoredEvent, deliveries: readonly NewDelivery[], skippedFor?: readonly string[]): Promise<InsertEventResult>;
  /** The events recorded as not sent to `webhookId`, oldest first. */
  listSkipped(webhookId: string): Promise<string[]>;
  /**
   * In one transaction: inserts `deliveries` (one per skipped event, `event_id` given) and forgets
   * those skipped records. A delivery of an event that the webhook has already is not inserted
   * again, so a replay sends each event once. Returns how many were inserted.
   */
  replaySkipped(webhookId: string, deliveries: readonly (NewDelivery & { event_id: string })[], now: number): Promise<number>;
  /**
   * Replay by time range, in one transaction (or one statement): inserts `deliveries` (`event_id`
   * given) marked `replay`, except for an event that has a pending (`retrying`) delivery to
   * `webhookId` already — replayed or not — and forgets the skipped records of the events it
   * queued. Two calls at once, in any processes, queue an event once: a unique index on the
   * pending replay deliveries, or the store's write lock, decides. Deliveries of a deleted
   * registration or of an event no longer stored are not inserted. Returns how many were
   * inserted. Optional: without it `webhooks.replay` answers `REPLAY_UNSUPPORTED`.
   */
  replayEvents?(webhookId: string, deliveries: readonly (NewDelivery & { event_id: string })[], now: number): Promise<number>;
  /** Attempts in flight and skipped events of each registration that has any (by id). */
  webhookActivity(now: number): Promise<Map<string, WebhookActivity>>;
  /** Counts of the queue for metrics (see {@link QueueStats}). */
  queueStats(now: number): Promise<QueueStats>;

  /**
   * Leases up to `limit` deliveries that are due — `retrying`, `next_attempt_at <= now` (an
   * expired lease included), of an active webhook — in one transaction: two processes never
   * lease the same delivery at the same time. Fair across registrations: within each one earliest
   * first, and among them the registration with the fewest attempts in flight first, so one with
   * 10 000 due deliveries cannot fill the slots ahead of one with 10. A registration at its cap
   * (`maxInFlight`, `maxInFlightWhileFailing`, over every process) or over its `rate_limit` gets
   * nothing; its deliveries stay due.
   */
  claimDue(request: ClaimRequest): Promise<DeliveryJob[]>;
  /**
   * The earliest `next_attempt_at` of a delivery a claim could take (`retrying`, of an active
   * webhook), due or not; `null` when there is none.
   */
  nextDueAt(): Promise<number | null>;
  /** One delivery with its event and webhook, leased or not (for manual retries). */
  loadJob(deliveryId: string): Promise<DeliveryJob | undefined>;
  /**
   * In one transaction: reads the delivery (locked against concurrent records), calls `recording`
   * with it, inserts the attempt it returns and sets the delivery's state fields to the ones it
   * returns. Records of one delivery that arrive together are applied one after the other, each
   * seeing the state the one before left. Rejects when the delivery does not exist. Resolves with
   * what `recording` returned, once committed.
   */
  recordAttempt(deliveryId: string, recording: AttemptRecording): Promise<RecordedAttempt>;

  getDelivery(id: string): Promise<StoredDelivery | undefined>;
  /** Newest first. */
  listDeliveries(query: DeliveryQuery): Promise<StoredDelivery[]>;
  /** How many deliveries the criteria select. */
  countDeliveries(query: DeliveryCountQuery): Promise<number>;
  /** The attempts of one delivery, oldest first. */
  listAttempts(deliveryId: string): Promise<StoredAttempt[]>;
  /** A page of attempts in the order they were recorded, after `cursor` (0 for the start). */
  exportAttempts(query: AttemptQuery, cursor: number, limit: number): Promise<ExportRow[]>;
}

/** The store once it is ready; rejects after the dispatcher was closed. Internal to the dispatcher. */
export type StoreAccess = () => Promise<DispatchStore>;

/** The pending deliveries by state, as metrics see them; those of disabled webhooks count as `paused`. */
export interface QueueStats {
  /** Pending and due now. */
  due: number;
  /** Pending, due later. */
  scheduled: number;
  /** Under a live lease. */
  in_flight: number;
  /** Pending, of a disabled webhook. */
  paused: number;
  /** The earliest due time of a due delivery (ms), or null. */
  oldest_due_at: number | null;
}

/**
 * Something an attempt made worth telling an operator: the registration has been failing for a
 * share (`threshold`) of the stretch after which it is disabled, or it has just been disabled.
 */
export type HealthAlert = { kind: 'failing'; threshold: number } | { kind: 'disabled' };
