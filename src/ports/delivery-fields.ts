import type { EventType } from '../events/catalog.js';
import { flag, integer, text, time, value, type StoredOf } from './fields.js';
import type { AttemptErrorKind, DeliveryStatus } from './dispatch-statuses.js';

/*
 * The one description of a delivery and of an attempt. The stored types below, the public
 * records (`Delivery`, `DeliveryAttempt`), the mapping between them and each backend's columns
 * derive from these two lists; the order here is the order of the records' keys (and of the
 * JSON Lines export).
 */

/** One event sent to one webhook, with its place in the retry schedule. */
export const DELIVERY_FIELDS = {
  /** `dlv_…` */
  id: value<string>(),
  event_id: value<string>(),
  event_type: value<EventType>(),
  webhook_id: value<string>(),
  correlation_id: value<string>(),
  status: value<DeliveryStatus>(),
  /** Attempts made so far, manual ones included. */
  attempt_count: integer(),
  /** Attempts made by the schedule; after `schedule.length` failed ones the delivery is `finally_failed`. */
  automatic_attempt_count: integer(),
  /**
   * When the next automatic attempt is due; `null` when none is planned. While an attempt is in
   * flight this is the end of its lease: if the worker dies, the attempt is re-sent then.
   */
  next_attempt_at: time<number | null>(),
  /** The worker holding the delivery for an attempt in flight. */
  lease_owner: value<string | null, true>({ internal: true }),
  lease_until: time<number | null, true>({ internal: true }),
  /** Sent by `sendTest()`. */
  test: flag(),
  /** Queued by `webhooks.replay()`: the event sent once more, beside its first delivery. */
  replay: flag(),
  created_at: time(),
  updated_at: time(),
} as const;

/** One row of the delivery log: one HTTP attempt. */
export const ATTEMPT_FIELDS = {
  /** `att_…` */
  id: value<string>(),
  delivery_id: value<string>(),
  webhook_id: value<string>(),
  /** The URL the attempt went to (the registration's URL at that time). */
  url: value<string>(),
  event_id: value<string>(),
  event_type: value<EventType>(),
  /** 1 for the first attempt of the delivery, counting manual attempts too. */
  attempt_number: integer(),
  /** When the attempt started (from the dispatcher's clock). */
  attempted_at: time(),
  /** `null` when no answer came (timeout, connection, TLS, refused URL). */
  response_status: integer<number | null>(),
  /** Measured wall time from sending to the end of the answer or the failure. */
  response_time_ms: integer(),
  /** The socket's remote address; `null` when no connection was made. */
  receiver_ip: value<string | null>(),
  correlation_id: value<string>(),
  /** The exact body sent: the event's payload, stored once with the event, not per attempt. */
  request_payload: value<string>({ column: false }),
  /** The answer's body, UTF-8, at most 64 KiB; `null` when there was no answer. */
  response_body: text<string | null>(),
  response_body_truncated: flag(),
  /** `null` for a delivered attempt. */
  error_kind: value<AttemptErrorKind | null>(),
  error_message: text<string | null>(),
  /** Made by `deliveries.retry()`. */
  manual: flag(),
  /** Made for `sendTest()`. */
  test: flag(),
} as const;

/** A delivery as the store keeps it: times in ms since the epoch, the lease included. */
export type StoredDelivery = StoredOf<typeof DELIVERY_FIELDS>;
/** An attempt as the store keeps it: times in ms since the epoch. */
export type StoredAttempt = StoredOf<typeof ATTEMPT_FIELDS>;

/** The fields of a delivery that an attempt changes; the rest are fixed when it is created. */
export const DELIVERY_STATE_FIELDS = [
  'status',
  'attempt_count',
  'automatic_attempt_count',
  'next_attempt_at',
  'lease_owner',
  'lease_until',
  'updated_at',
] as const satisfies readonly (keyof StoredDelivery)[];
