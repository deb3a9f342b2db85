import type { EventType } from '../../events/catalog.js';
import { ATTEMPT_FIELDS, DELIVERY_FIELDS } from '../../ports/delivery-fields.js';
import { rowMapping } from '../../ports/fields.js';
import type { DeliveryJob, StoredEvent } from '../../ports/dispatch-store.js';
import type { WebhookScheme } from '../../ports/dispatch-statuses.js';
import { WEBHOOK_FIELDS } from '../../ports/webhook-fields.js';
import { SQLITE_CODECS } from './codecs.js';

/* Rows as better-sqlite3 returns them (flags as 0 or 1, lists as JSON text) → the store's records. */

export const deliveryRows = rowMapping(DELIVERY_FIELDS, SQLITE_CODECS);
export const attemptRows = rowMapping(ATTEMPT_FIELDS, SQLITE_CODECS);
export const webhookRows = rowMapping(WEBHOOK_FIELDS, SQLITE_CODECS);

export interface EventRow {
  id: string;
  type: EventType;
  payload: string;
  correlation_id: string;
  test: number;
  created_at: number;
}

/** A delivery's columns with its event's and webhook's, as the job statements select them. */
export type JobRow = Record<string, unknown> & {
  event_type: EventType;
  event_id: string;
  webhook_id: string;
  correlation_id: string;
  payload: string;
  event_test: number;
  event_created_at: number;
  url: string;
  secret: string;
  scheme: WebhookScheme;
  previous_secret: string | null;
  previous_secret_expires_at: unknown;
  headers: string;
};

export const WEBHOOK_COLUMNS = webhookRows.columns.join(', ');
export const EVENT_COLUMNS = 'id, type, payload, correlation_id, test, created_at';
/** What a job reads besides the delivery's own columns. */
export const JOB_COLUMNS = 'e.payload, e.test AS event_test, e.created_at AS event_created_at, w.url, w.secret, w.headers, w.scheme, w.previous_secret, w.previous_secret_expires_at';

export const bit = (flag: boolean): number => (flag ? 1 : 0);

export function toEvent(row: EventRow): StoredEvent {
  return { ...row, test: row.test === 1 };
}

export function toJob(row: JobRow): DeliveryJob {
  return {
    delivery: deliveryRows.read(row),
    event: { id: row.event_id, type: row.event_type, payload: row.payload, correlation_id: row.correlation_id, test: row.event_test === 1, created_at: row.event_created_at },
    webhook: {
      id: row.webhook_id,
      url: row.url,
      secret: row.secret,
      headers: JSON.parse(row.headers) as Record<string, string>,
      scheme: row.scheme,
      previous_secret: row.previous_secret,
      previous_secret_expires_at: row.previous_secret_expires_at as number | null,
    },
  };
}
