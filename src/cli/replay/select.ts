import type { DeliveryStatus } from '../../dispatcher/records.js';
import { payloadRemoved } from '../../ports/retention.js';
import type { LoggedAttempt, LogEntry, MalformedLine } from './log-lines.js';

/** Which deliveries to replay; every criterion given must hold. */
export interface ReplayFilter {
  /** Event types (a pattern, expanded); all when absent. */
  types?: ReadonlySet<string>;
  /** The delivery's status when the log was exported. */
  status?: DeliveryStatus;
  /** An attempt at or after this time (ms) selects its delivery. */
  since?: number;
  /** An attempt before this time (ms) selects its delivery. */
  until?: number;
}

/** One event to send again: the first selected delivery of it names it. */
export interface ReplayItem {
  deliveryId: string;
  eventId: string;
  type: string;
  originalStatus: DeliveryStatus;
  /** The exact bytes the platform sent. */
  payload: string;
}

export interface Selection {
  items: ReplayItem[];
  malformed: MalformedLine[];
  /** Non-blank lines read, malformed ones included. */
  lines: number;
  /** Deliveries that matched the filter (an event sent to several webhooks has several). */
  deliveries: number;
  /** Selected events whose payload the dispatcher no longer keeps (retention, erase): not sent. */
  withoutPayload: string[];
}

/**
 * What a replay sends: each selected **event once**. The log has one line per attempt, and a
 * delivery is selected when one of its attempts matches the filter (type and status are the
 * delivery's; `since`/`until` the attempt's time). Several deliveries of the same event (to
 * several webhooks) are one replay, so the receiver sees each event once. Order: the order in
 * which the selected events first appear in the log (the export is oldest attempt first).
 * Malformed lines are collected, with their numbers, and reported by the caller.
 */
export async function selectForReplay(entries: AsyncIterable<LogEntry>, filter: ReplayFilter, onMalformed: (line: MalformedLine) => void): Promise<Selection> {
  const byEvent = new Map<string, ReplayItem>();
  const deliveries = new Set<string>();
  const malformed: MalformedLine[] = [];
  const withoutPayload = new Set<string>();
  let lines = 0;
  for await (const entry of entries) {
    lines += 1;
    if ('malformed' in entry) {
      malformed.push(entry.malformed);
      onMalformed(entry.malformed);
      continue;
    }
    const { attempt } = entry;
    if (!matches(attempt, filter)) continue;
    deliveries.add(attempt.delivery_id);
    if (payloadRemoved(attempt.request_payload)) withoutPayload.add(attempt.event_id);
    else if (!byEvent.has(attempt.event_id)) byEvent.set(attempt.event_id, toItem(attempt));
  }
  return { items: [...byEvent.values()], malformed, lines, deliveries: deliveries.size, withoutPayload: [...withoutPayload] };
}

function matches(attempt: LoggedAttempt, filter: ReplayFilter): boolean {
  if (filter.types !== undefined && !filter.types.has(attempt.event_type)) return false;
  if (filter.status !== undefined && attempt.delivery_status !== filter.status) return false;
  if (filter.since !== undefined && attempt.attempted_at < filter.since) return false;
  if (filter.until !== undefined && attempt.attempted_at >= filter.until) return false;
  return true;
}

function toItem(attempt: LoggedAttempt): ReplayItem {
  return {
    deliveryId: attempt.delivery_id,
    eventId: attempt.event_id,
    type: attempt.event_type,
    originalStatus: attempt.delivery_status,
    payload: attempt.request_payload,
  };
}
