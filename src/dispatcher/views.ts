import type { EventPattern } from '../events/catalog.js';
import type { Delivery, DeliveryAttempt, WebhookRegistration } from './records.js';
import type { StoredAttempt, StoredDelivery, StoredWebhook } from './storage.js';

/* Stored rows (times in ms) → the public records (times in ISO 8601). */

const iso = (ms: number): string => new Date(ms).toISOString();

export function toRegistration(webhook: StoredWebhook): WebhookRegistration {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events as EventPattern[],
    headers: { ...webhook.headers },
    status: webhook.status,
    created_at: iso(webhook.created_at),
    updated_at: iso(webhook.updated_at),
  };
}

export function toDelivery(delivery: StoredDelivery): Delivery {
  return {
    id: delivery.id,
    event_id: delivery.event_id,
    event_type: delivery.event_type,
    webhook_id: delivery.webhook_id,
    correlation_id: delivery.correlation_id,
    status: delivery.status,
    attempt_count: delivery.attempt_count,
    automatic_attempt_count: delivery.automatic_attempt_count,
    next_attempt_at: delivery.next_attempt_at === null ? null : iso(delivery.next_attempt_at),
    test: delivery.test,
    created_at: iso(delivery.created_at),
    updated_at: iso(delivery.updated_at),
  };
}

export function toAttempt(attempt: StoredAttempt): DeliveryAttempt {
  return {
    id: attempt.id,
    delivery_id: attempt.delivery_id,
    webhook_id: attempt.webhook_id,
    url: attempt.url,
    event_id: attempt.event_id,
    event_type: attempt.event_type,
    attempt_number: attempt.attempt_number,
    attempted_at: iso(attempt.attempted_at),
    response_status: attempt.response_status,
    response_time_ms: attempt.response_time_ms,
    receiver_ip: attempt.receiver_ip,
    correlation_id: attempt.correlation_id,
    request_payload: attempt.request_payload,
    response_body: attempt.response_body,
    response_body_truncated: attempt.response_body_truncated,
    error_kind: attempt.error_kind,
    error_message: attempt.error_message,
    manual: attempt.manual,
    test: attempt.test,
  };
}
