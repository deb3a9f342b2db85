import type { EventPattern } from '../events/catalog.js';
import type { ATTEMPT_FIELDS, DELIVERY_FIELDS } from '../ports/delivery-fields.js';
import type { RecordOf } from '../ports/fields.js';
import type { DeliveryStatus, DisabledReason, WebhookStatus } from '../ports/dispatch-statuses.js';

export type { AttemptErrorKind, DeliveryStatus, DisabledReason, WebhookStatus } from '../ports/dispatch-statuses.js';

/** A webhook registration as `webhooks.list()` and `webhooks.get()` return it (without the secret). */
export interface WebhookRegistration {
  /** `wh_…` */
  id: string;
  url: string;
  /** Event types and patterns (`invoice.*`, `*`), as registered. */
  events: EventPattern[];
  /** Custom headers sent with every delivery (names in lower case). */
  headers: Record<string, string>;
  /** `active`, or `disabled` (nothing is sent; new events are recorded as skipped, see `skipped_events`). */
  status: WebhookStatus;
  /** Why it is disabled: `manual` (by `update`), `failing` (by the dispatcher after a stretch of failure); `null` while active. */
  disabled_reason: DisabledReason | null;
  disabled_at: string | null;
  /** Failed attempts in a row since the last delivered one; 0 when the last attempt was delivered. */
  failure_streak: number;
  /** The first failed attempt of the current streak; `null` while the streak is 0. */
  failing_since: string | null;
  /** The latest failed attempt; `null` while the streak is 0. */
  last_failure_at: string | null;
  /** Attempts started per second at most (bursts up to one second's worth); `null`: no limit. */
  rate_limit: number | null;
  /** Attempts in flight now, over every worker on the store. */
  in_flight: number;
  /** Events recorded as not sent while disabled, which `webhooks.enable(id, { replay: true })` sends. */
  skipped_events: number;
  created_at: string;
  updated_at: string;
}

/** What `webhooks.enable()` returns: the registration, active again, and how many skipped events it replayed. */
export interface EnabledWebhook extends WebhookRegistration {
  replayed: number;
}

/** What `webhooks.create()` returns: the registration and its signing secret (`whsec_…`). */
export interface WebhookWithSecret extends WebhookRegistration {
  secret: string;
}

/**
 * One event sent to one webhook, with its place in the retry schedule: every field of
 * `DELIVERY_FIELDS` but the lease, times in ISO 8601.
 */
export type Delivery = RecordOf<typeof DELIVERY_FIELDS>;

/** One row of the delivery log, one HTTP attempt: every field of `ATTEMPT_FIELDS`, times in ISO 8601. */
export type DeliveryAttempt = RecordOf<typeof ATTEMPT_FIELDS>;

/** A delivery with its whole log, oldest attempt first. */
export interface DeliveryDetail extends Delivery {
  attempts: DeliveryAttempt[];
}

/** One line of `deliveries.export()`: an attempt and the current status of its delivery. */
export interface ExportedAttempt extends DeliveryAttempt {
  delivery_status: DeliveryStatus;
}
