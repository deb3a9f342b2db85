import type { EventPattern } from '../events/catalog.js';
import { ATTEMPT_FIELDS, DELIVERY_FIELDS, type StoredAttempt, type StoredDelivery } from './delivery-fields.js';
import { toPublicRecord } from './fields.js';
import type { Delivery, DeliveryAttempt, WebhookRegistration } from './records.js';
import type { StoredWebhook } from './store.js';

/* Stored records (times in ms) → the public records (times in ISO 8601). */

export function toRegistration(webhook: StoredWebhook): WebhookRegistration {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events as EventPattern[],
    headers: { ...webhook.headers },
    status: webhook.status,
    created_at: new Date(webhook.created_at).toISOString(),
    updated_at: new Date(webhook.updated_at).toISOString(),
  };
}

export function toDelivery(delivery: StoredDelivery): Delivery {
  return toPublicRecord(DELIVERY_FIELDS, delivery);
}

export function toAttempt(attempt: StoredAttempt): DeliveryAttempt {
  return toPublicRecord(ATTEMPT_FIELDS, attempt);
}
