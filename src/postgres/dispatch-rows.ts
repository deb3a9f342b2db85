import type { EventType } from '../events/catalog.js';
import { ATTEMPT_FIELDS, DELIVERY_FIELDS } from '../ports/delivery-fields.js';
import { AS_IS, rowMapping, type BackendCodecs } from '../ports/fields.js';
import { WEBHOOK_FIELDS, WEBHOOK_TIME_FIELDS } from '../ports/webhook-fields.js';
import type { DeliveryJob, StoredEvent, StoredWebhook } from '../ports/dispatch-store.js';
import { int8, nullableInt8, readInt8, readNullableInt8 } from './int8.js';
import { decodeText, encodeText } from './text-codec.js';

/* Rows as pg returns them (bigint as text, json parsed, boolean as boolean) → the store's records. */

const POSTGRES_CODECS: BackendCodecs = {
  value: AS_IS,
  integer: AS_IS,
  flag: AS_IS,
  time: { read: (stored, column) => readInt8(stored, column), write: (ms, column) => int8(ms as number, column) },
  // A receiver's answer may hold what PostgreSQL text cannot (U+0000): stored escaped.
  text: { read: (stored) => decodeText(stored as string), write: (text) => encodeText(text as string) },
};

export const deliveryRows = rowMapping(DELIVERY_FIELDS, POSTGRES_CODECS);
export const attemptRows = rowMapping(ATTEMPT_FIELDS, POSTGRES_CODECS);

export type WebhookRow = Record<(typeof WEBHOOK_FIELDS)[number], unknown>;

export interface EventRow {
  id: string;
  type: EventType;
  payload: string;
  correlation_id: string;
  test: boolean;
  created_at: unknown;
}

/** A delivery's columns with its event's and webhook's, as the job statements select them. */
export type JobRow = Record<string, unknown> & {
  event_id: string;
  event_type: EventType;
  webhook_id: string;
  correlation_id: string;
  payload: string;
  event_test: boolean;
  event_created_at: unknown;
  url: string;
  secret: string;
  headers: unknown;
};

export function toWebhook(row: WebhookRow): StoredWebhook {
  const webhook: Record<string, unknown> = { ...row, events: json(row.events), headers: json(row.headers) };
  for (const field of WEBHOOK_TIME_FIELDS) webhook[field] = readNullableInt8(row[field], field);
  return webhook as unknown as StoredWebhook;
}

/** A registration's values in the order of WEBHOOK_FIELDS, as the statements take them. */
export function webhookValues(webhook: StoredWebhook): unknown[] {
  return WEBHOOK_FIELDS.map((field) => {
    const value = webhook[field];
    if (field === 'events' || field === 'headers') return JSON.stringify(value);
    return (WEBHOOK_TIME_FIELDS as readonly string[]).includes(field) ? nullableInt8(value as number | null, field) : value;
  });
}

export function toEvent(row: EventRow): StoredEvent {
  return { ...row, created_at: readInt8(row.created_at, 'created_at') };
}

export function toJob(row: JobRow): DeliveryJob {
  return {
    delivery: deliveryRows.read(row),
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
