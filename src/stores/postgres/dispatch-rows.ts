import type { EventType } from '../../events/catalog.js';
import { ATTEMPT_FIELDS, DELIVERY_FIELDS } from '../../ports/delivery-fields.js';
import { rowMapping } from '../../ports/fields.js';
import type { WebhookScheme } from '../../ports/dispatch-statuses.js';
import { WEBHOOK_FIELDS } from '../../ports/webhook-fields.js';
import { POSTGRES_CODECS } from './codecs.js';
import type { DeliveryJob, StoredEvent, StoredWebhook } from '../../ports/dispatch-store.js';
import { readInt8 } from './int8.js';

/* Rows as pg returns them (bigint as text, json parsed, boolean as boolean) → the store's records. */

export const deliveryRows = rowMapping(DELIVERY_FIELDS, POSTGRES_CODECS);
export const attemptRows = rowMapping(ATTEMPT_FIELDS, POSTGRES_CODECS);
export const webhookRows = rowMapping(WEBHOOK_FIELDS, POSTGRES_CODECS);

/** A registration's columns as pg returns them. */
export type WebhookRow = Record<string, unknown>;

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
  scheme: WebhookScheme;
  previous_secret: string | null;
  previous_secret_expires_at: unknown;
  headers: unknown;
};

/** A registration's values in the order of `webhookRows.columns`, as the statements take them. */
export function webhookValues(webhook: StoredWebhook): unknown[] {
  const row = webhookRows.write(webhook);
  return webhookRows.columns.map((column) => row[column]);
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
    webhook: {
      id: row.webhook_id,
      url: row.url,
      secret: row.secret,
      headers: POSTGRES_CODECS.json.read(row.headers, 'headers') as Record<string, string>,
      scheme: row.scheme,
      previous_secret: row.previous_secret,
      previous_secret_expires_at: row.previous_secret_expires_at === null ? null : readInt8(row.previous_secret_expires_at, 'previous_secret_expires_at'),
    },
  };
}

