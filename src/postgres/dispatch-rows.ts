import type { EventType } from '../events/catalog.js';
import type { AttemptErrorKind, DeliveryStatus, WebhookStatus } from '../dispatcher/records.js';
import type { DeliveryJob, StoredAttempt, StoredDelivery, StoredEvent, StoredWebhook } from '../dispatcher/storage.js';
import { readInt8, readNullableInt8 } from './int8.js';
import { decodeNullableText } from './text-codec.js';

/* Rows as pg returns them (bigint as text, json parsed, boolean as boolean) → the storage's records. */

export interface WebhookRow {
  id: string;
  url: string;
  events: unknown;
  headers: unknown;
  status: WebhookStatus;
  secret: string;
  created_at: unknown;
  updated_at: unknown;
}

export interface EventRow {
  id: string;
  type: EventType;
  payload: string;
  correlation_id: string;
  test: boolean;
  created_at: unknown;
}

export interface DeliveryRow {
  seq: unknown;
  id: string;
  event_id: string;
  event_type: EventType;
  webhook_id: string;
  correlation_id: string;
  status: DeliveryStatus;
  attempt_count: number;
  automatic_attempt_count: number;
  next_attempt_at: unknown;
  lease_owner: string | null;
  lease_until: unknown;
  test: boolean;
  created_at: unknown;
  updated_at: unknown;
}

export interface AttemptRow {
  seq: unknown;
  id: string;
  delivery_id: string;
  webhook_id: string;
  url: string;
  event_id: string;
  event_type: EventType;
  attempt_number: number;
  attempted_at: unknown;
  response_status: number | null;
  response_time_ms: number;
  receiver_ip: string | null;
  correlation_id: string;
  request_payload: string;
  response_body: string | null;
  response_body_truncated: boolean;
  error_kind: AttemptErrorKind | null;
  error_message: string | null;
  manual: boolean;
  test: boolean;
}

export type JobRow = DeliveryRow & {
  payload: string;
  event_test: boolean;
  event_created_at: unknown;
  url: string;
  secret: string;
  headers: unknown;
};

export function toWebhook(row: WebhookRow): StoredWebhook {
  return {
    id: row.id,
    url: row.url,
    events: json(row.events) as string[],
    headers: json(row.headers) as Record<string, string>,
    status: row.status,
    secret: row.secret,
    created_at: readInt8(row.created_at, 'created_at'),
    updated_at: readInt8(row.updated_at, 'updated_at'),
  };
}

export function toEvent(row: EventRow): StoredEvent {
  return {
    id: row.id,
    type: row.type,
    payload: row.payload,
    correlation_id: row.correlation_id,
    test: row.test,
    created_at: readInt8(row.created_at, 'created_at'),
  };
}

export function toDelivery(row: DeliveryRow): StoredDelivery {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    webhook_id: row.webhook_id,
    correlation_id: row.correlation_id,
    status: row.status,
    attempt_count: row.attempt_count,
    automatic_attempt_count: row.automatic_attempt_count,
    next_attempt_at: readNullableInt8(row.next_attempt_at, 'next_attempt_at'),
    lease_owner: row.lease_owner,
    lease_until: readNullableInt8(row.lease_until, 'lease_until'),
    test: row.test,
    created_at: readInt8(row.created_at, 'created_at'),
    updated_at: readInt8(row.updated_at, 'updated_at'),
  };
}

export function toAttempt(row: AttemptRow): StoredAttempt {
  return {
    id: row.id,
    delivery_id: row.delivery_id,
    webhook_id: row.webhook_id,
    url: row.url,
    event_id: row.event_id,
    event_type: row.event_type,
    attempt_number: row.attempt_number,
    attempted_at: readInt8(row.attempted_at, 'attempted_at'),
    response_status: row.response_status,
    response_time_ms: row.response_time_ms,
    receiver_ip: row.receiver_ip,
    correlation_id: row.correlation_id,
    request_payload: row.request_payload,
    response_body: decodeNullableText(row.response_body),
    response_body_truncated: row.response_body_truncated,
    error_kind: row.error_kind,
    error_message: decodeNullableText(row.error_message),
    manual: row.manual,
    test: row.test,
  };
}

export function toJob(row: JobRow): DeliveryJob {
  return {
    delivery: toDelivery(row),
    event: {
      id: row.event_id,
      type: row.event_type,
      payload: row.payload,
      correlation_id: row.correlation_id,
      test: row.event_test,
      created_at: readInt8(row.event_created_at, 'event_created_at'),
    },
    webhook: { id: row.webhook_id, url: row.url, secret: row.secret, headers: json(row.headers) as Record<string, string> },
  };
}

/** pg parses json columns; a pool with its own type parsers may hand over the text instead. */
function json(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}
