/*
 * A read-only view of an idempotency store's records, for inspection (the dashboard). Offered
 * beside a store rather than on its interface, so that stores written elsewhere need not
 * implement it: a store without it simply has no list of handled events to show.
 */

/** Where an event id stands in the idempotency store. */
export type EventRecordState = 'processing' | 'completed';

/** One event id the receiver claimed. A record: snake_case, ISO 8601 times. */
export interface EventRecord {
  event_id: string;
  event_type: string | null;
  state: EventRecordState;
  first_seen_at: string;
  completed_at: string | null;
  /** While `processing`: until when the claim holds; after it, the next delivery takes it over. */
  lease_until: string | null;
  /** How many deliveries claimed it (a takeover after a failure or a timeout counts again). */
  claims: number;
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
