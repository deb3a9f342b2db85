import { bytes, columnsOf, flag, integer, text, time, value, type StoredOf } from './fields.js';
import type { ClaimedInboxEvent, InboxEvent, InboxInput, InboxStats, InboxStatus, StoredVerification } from './inbox.js';
import { isoString } from '../kernel/iso-string.js';

/*
 * The one description of an inbox row: the stored type (`InboxRow`, the memory store's too), the
 * columns every read selects, and each SQL backend's row codecs derive from it. The public
 * record (`InboxEvent`) is shaped from it by `toInboxEvent`: `created` for `event_created`,
 * `last_error` for its code and message, the headers without how they were verified.
 */
export const INBOX_FIELDS = {
  event_id: text(),
  event_type: value<string>(),
  status: value<InboxStatus>(),
  raw_body: bytes(),
  /** The headers that matter and how the delivery was verified, as JSON (see `headersColumn`). */
  headers: value<string>(),
  received_at: time(),
  event_created: time(),
  ordering_key: text<string | null>(),
  ordering_rank: integer(),
  attempts: integer(),
  next_attempt_at: time(),
  token: value<string | null, true>({ internal: true }),
  /** Until when a `processing` row's claim holds (0 when none does). */
  lease_until: time<number, true>({ internal: true }),
  last_error_code: value<string | null>(),
  /** A handler's own error message: any text. */
  last_error_message: text<string | null>(),
  stale: flag(),
  completed_at: time<number | null>(),
} as const;

/** An inbox row as every backend keeps it: times in ms since the epoch. */
export type InboxRow = StoredOf<typeof INBOX_FIELDS>;

/** The columns every read selects, in the order of {@link INBOX_FIELDS}. */
export const INBOX_COLUMNS = columnsOf(INBOX_FIELDS).join(', ');

/** What the `headers` column holds: the headers that matter and how the delivery was verified. */
interface StoredHeaders {
  headers: Record<string, string>;
  secret_index: number;
  signature_scheme: StoredVerification['signatureScheme'];
  /** Absent for the platform's scheme (and in every row written before Standard Webhooks). */
  scheme?: 'standard-webhooks';
}

export function headersColumn(input: Pick<InboxInput, 'headers' | 'verified'>): string {
  const stored: StoredHeaders = { headers: input.headers, secret_index: input.verified.secretIndex, signature_scheme: input.verified.signatureScheme };
  if (input.verified.scheme === 'standard-webhooks') stored.scheme = 'standard-webhooks';
  return JSON.stringify(stored);
}

function readHeadersColumn(column: string): StoredHeaders {
  return JSON.parse(column) as StoredHeaders;
}

export function toInboxEvent(row: InboxRow): InboxEvent {
  return {
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    received_at: isoString(row.received_at),
    created: isoString(row.event_created),
    next_attempt_at: row.status === 'pending' ? isoString(row.next_attempt_at) : null,
    completed_at: row.completed_at === null ? null : isoString(row.completed_at),
    last_error: row.last_error_code === null ? null : { code: row.last_error_code, message: row.last_error_message ?? '' },
    ordering_key: row.ordering_key,
    stale: row.stale,
    headers: readHeadersColumn(row.headers).headers,
    raw_body: row.raw_body,
  };
}

/** The columns a claim reads. */
export type ClaimedColumns = Pick<InboxRow, 'event_id' | 'raw_body' | 'headers' | 'received_at' | 'event_created' | 'ordering_key' | 'ordering_rank' | 'attempts'>;

export function toClaimed(row: ClaimedColumns, token: string): ClaimedInboxEvent {
  const stored = readHeadersColumn(row.headers);
  return {
    eventId: row.event_id,
    token,
    rawBody: row.raw_body,
    verified: { secretIndex: stored.secret_index, signatureScheme: stored.signature_scheme, scheme: stored.scheme ?? 'svc' },
    receivedAt: row.received_at,
    attempt: row.attempts,
    version:
      row.ordering_key === null ? null : { key: row.ordering_key, created: row.event_created, rank: row.ordering_rank, eventId: row.event_id },
  };
}

/** The filter's limit, bounded. */
export const DEFAULT_INBOX_LIST_LIMIT = 100;

/** The columns an enqueued event is stored with. */
export function insertedColumns(input: InboxInput) {
  return {
    event_id: input.eventId,
    event_type: input.eventType,
    raw_body: input.rawBody,
    headers: headersColumn(input),
    received_at: input.receivedAt,
    event_created: input.created,
    ordering_key: input.version?.key ?? null,
    ordering_rank: input.version?.rank ?? 0,
  };
}

/** The stats from the counts by status and the oldest pending event's arrival (ms, or null). */
export function inboxStats(counts: Pick<InboxStats, InboxStatus>, oldest: number | null, now: number): InboxStats {
  return {
    ...counts,
    oldest_pending_at: oldest === null ? null : new Date(oldest).toISOString(),
    oldest_pending_age_ms: oldest === null ? null : Math.max(0, now - oldest),
  };
}
