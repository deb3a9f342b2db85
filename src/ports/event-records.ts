/*
 * A read-only view of an idempotency store's records, for inspection (the dashboard). Offered
 * beside a store rather than on its interface, so that stores written elsewhere need not
 * implement it: a store without it simply has no list of handled events to show.
 */

import { integer, text, time, toPublicRecord, value, type RecordOf, type StoredOf } from './fields.js';

/** Where an event id stands in the idempotency store. */
export type EventRecordState = 'processing' | 'completed';

/** Every state a record can be in. */
export const EVENT_RECORD_STATES: readonly EventRecordState[] = ['completed', 'processing'];

/*
 * The one description of an idempotency record: the row each backend keeps, its codecs and the
 * public record derive from it.
 */
export const EVENT_RECORD_FIELDS = {
  event_id: text(),
  event_type: text<string | null>(),
  state: value<EventRecordState>(),
  first_seen_at: time(),
  completed_at: time<number | null>(),
  /** How many deliveries claimed it (a takeover after a failure or a timeout counts again). */
  claims: integer(),
  /** The current claim's token. */
  token: value<string, true>({ internal: true }),
  /** Until when the current claim holds; shown only while `processing`. */
  lease_until: time<number, true>({ internal: true }),
} as const;

/** An idempotency record as a store keeps it: times in ms since the epoch. */
export type StoredEventRecord = StoredOf<typeof EVENT_RECORD_FIELDS>;

/** One event id the receiver claimed. A record: snake_case, ISO 8601 times. */
export interface EventRecord extends RecordOf<typeof EVENT_RECORD_FIELDS> {
  /** While `processing`: until when the claim holds; after it, the next delivery takes it over. */
  lease_until: string | null;
}

/** The public record of a stored one. */
export function toEventRecord(stored: StoredEventRecord): EventRecord {
  return { ...toPublicRecord(EVENT_RECORD_FIELDS, stored), lease_until: stored.state === 'processing' ? new Date(stored.lease_until).toISOString() : null };
}

export interface EventRecordQuery {
  state?: EventRecordState;
  limit: number;
  offset: number;
}

/** Lists and counts an idempotency store's records, newest first. */
export interface EventRecords {
  list(query: EventRecordQuery): Promise<EventRecord[]>;
  count(state?: EventRecordState): Promise<number>;
}

const offered = new WeakMap<object, EventRecords>();

/** Attaches the records' reader to a store; returns the store. */
export function offerEventRecords<Store extends object>(store: Store, records: EventRecords): Store {
  offered.set(store, records);
  return store;
}

/** The records' reader of a store, when it offers one. */
export function eventRecordsOf(store: object): EventRecords | undefined {
  return offered.get(store);
}
