import type { ATTEMPT_FIELDS, DELIVERY_FIELDS } from '../ports/delivery-fields.js';
import type { RecordOf } from '../ports/fields.js';
import type { DeliveryStatus } from '../ports/dispatch-statuses.js';
import type { WEBHOOK_FIELDS } from '../ports/webhook-fields.js';

export type { AttemptErrorKind, DeliveryStatus, DisabledReason, SigningAlgorithm, WebhookScheme, WebhookScope, WebhookStatus } from '../ports/dispatch-statuses.js';

/**
 * A webhook registration as `webhooks.list()` and `webhooks.get()` return it: every field of
 * `WEBHOOK_FIELDS` but the secret (times in ISO 8601), and what it is doing now.
 */
export interface WebhookRegistration extends RecordOf<typeof WEBHOOK_FIELDS> {
  /** Attempts in flight now, over every worker on the store. */
  in_flight: number;
  /** Events recorded as not sent while disabled, which `webhooks.enable(id, { replay: true })` sends. */
  skipped_events: number;
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
