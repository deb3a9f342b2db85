import { createInterface } from 'node:readline';
import type { DeliveryStatus } from '../../dispatcher/records.js';
import { isDeliveryStatus } from '../../ports/dispatch-statuses.js';

/** What replay needs from one line of the dispatcher's JSON Lines export (one attempt). */
export interface LoggedAttempt {
  /** 1-based line number in the file. */
  line: number;
  delivery_id: string;
  event_id: string;
  event_type: string;
  /** ms since the epoch */
  attempted_at: number;
  /** The exact body that was sent. */
  request_payload: string;
  /** The delivery's status when the log was exported. */
  delivery_status: DeliveryStatus;
}

/** A line that is not an attempt of the export format: reported with its number, then skipped. */
export interface MalformedLine {
  line: number;
  reason: string;
}

export type LogEntry = { attempt: LoggedAttempt } | { malformed: MalformedLine };

const TEXT_FIELDS = ['delivery_id', 'event_id', 'event_type', 'request_payload'] as const;

/**
 * Reads JSON Lines: every non-blank line becomes an attempt or a malformed-line report (never
 * silently dropped). A blank line carries nothing and is passed over.
 */
export async function* readLogLines(input: NodeJS.ReadableStream): AsyncGenerator<LogEntry> {
  let number = 0;
  for await (const text of createInterface({ input, crlfDelay: Infinity })) {
    number += 1;
    if (text.trim() === '') continue;
    yield parseLine(text, number);
  }
}

export function parseLine(text: string, line: number): LogEntry {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { malformed: { line, reason: 'not valid JSON' } };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { malformed: { line, reason: 'not a JSON object' } };
  const record = value as Record<string, unknown>;
  for (const field of TEXT_FIELDS) {
    if (typeof record[field] !== 'string' || record[field] === '') return { malformed: { line, reason: `${field} is missing or not a string` } };
  }
  const attemptedAt = typeof record.attempted_at === 'string' ? Date.parse(record.attempted_at) : NaN;
  if (!Number.isFinite(attemptedAt)) return { malformed: { line, reason: 'attempted_at is missing or not an ISO 8601 time' } };
  if (!isDeliveryStatus(record.delivery_status)) return { malformed: { line, reason: 'delivery_status is missing or not a delivery status' } };
  return {
    attempt: {
      line,
      delivery_id: record.delivery_id as string,
      event_id: record.event_id as string,
      event_type: record.event_type as string,
      attempted_at: attemptedAt,
      request_payload: record.request_payload as string,
      delivery_status: record.delivery_status,
    },
  };
}
