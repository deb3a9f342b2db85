import { ATTEMPT_FIELDS, DELIVERY_FIELDS, type StoredAttempt, type StoredDelivery } from '../ports/delivery-fields.js';
import { toPublicRecord } from '../ports/fields.js';
import type { Delivery, DeliveryAttempt, WebhookRegistration } from './records.js';
import type { StoredWebhook, WebhookActivity } from '../ports/dispatch-store.js';
import { WEBHOOK_FIELDS } from '../ports/webhook-fields.js';

/* Stored records (times in ms) → the public records (times in ISO 8601). */

/** A registration as `webhooks.list()` and `get()` show it, with what it is doing now (`activity`). */
export function toRegistration(webhook: StoredWebhook, activity: WebhookActivity = IDLE): WebhookRegistration {
  return { ...toPublicRecord(WEBHOOK_FIELDS, webhook), in_flight: activity.in_flight, skipped_events: activity.skipped_events };
}

const IDLE: WebhookActivity = Object.freeze({ in_flight: 0, skipped_events: 0 });

export function toDelivery(delivery: StoredDelivery): Delivery {
  return toPublicRecord(DELIVERY_FIELDS, delivery);
}

export function toAttempt(attempt: StoredAttempt): DeliveryAttempt {
  return toPublicRecord(ATTEMPT_FIELDS, attempt);
}
