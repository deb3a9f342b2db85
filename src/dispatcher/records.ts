import type { EventPattern } from '../events/catalog.js';
import type { ATTEMPT_FIELDS, DELIVERY_FIELDS } from './delivery-fields.js';
import type { RecordOf } from './fields.js';
import type { DeliveryStatus, WebhookStatus } from './statuses.js';

export type { AttemptErrorKind, DeliveryStatus, WebhookStatus } from './statuses.js';

/** A webhook registration as `webhooks.list()` and `webhooks.get()` return it (without the secret). */
export interface WebhookRegistration {
  /** `wh_…` */
  id: string;
  url: string;
  /** Event types and patterns (`invoice.*`, `*`), as registered. */
  events: EventPattern[];
  /** Custom headers sent with every delivery (names in lower case). */
  headers: Record<string, string>;
  status: WebhookStatus;
  created_at: string;
  updated_at: string;
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
