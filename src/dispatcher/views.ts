import type { EventPattern } from '../events/catalog.js';
import { ATTEMPT_FIELDS, DELIVERY_FIELDS, type StoredAttempt, type StoredDelivery } from '../ports/delivery-fields.js';
import { toPublicRecord } from '../ports/fields.js';
import type { Delivery, DeliveryAttempt, WebhookRegistration } from './records.js';
import type { StoredWebhook, WebhookActivity } from '../ports/dispatch-store.js';

/* Stored records (times in ms) → the public records (times in ISO 8601). */

const isoOrNull = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** A registration as `webhooks.list()` and `get()` show it, with what it is doing now (`activity`). */
export function toRegistration(webhook: StoredWebhook, activity: WebhookActivity = IDLE): WebhookRegistration {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events as EventPattern[],
    headers: { ...webhook.headers },
    status: webhook.status,
    disabled_reason: webhook.disabled_reason,
    disabled_at: isoOrNull(webhook.disabled_at),
    failure_streak: webhook.failure_streak,
    failing_since: isoOrNull(webhook.failing_since),
    last_failure_at: isoOrNull(webhook.last_failure_at),
    rate_limit: webhook.rate_limit,
    in_flight: activity.in_flight,
    skipped_events: activity.skipped_events,
    created_at: new Date(webhook.created_at).toISOString(),
    updated_at: new Date(webhook.updated_at).toISOString(),
  };
}

const IDLE: WebhookActivity = Object.freeze({ in_flight: 0, skipped_events: 0 });

export function toDelivery(delivery: StoredDelivery): Delivery {
  return toPublicRecord(DELIVERY_FIELDS, delivery);
}

export function toAttempt(attempt: StoredAttempt): DeliveryAttempt {
  return toPublicRecord(ATTEMPT_FIELDS, attempt);
}
