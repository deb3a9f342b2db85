import type { EventType } from '../events/catalog.js';

/*
 * The events feed's reads (a DispatchStore's optional listEvents and getEvent): every event the
 * dispatcher stored, per business, in the order the store recorded them. A position in that order
 * (`seq`) only grows, and an event becomes visible to a read only after every event of its business
 * with a smaller position has (an event committed later never lands before a cursor already read).
 */

/** An event as the feed reads it: the stored event, its business and its position. */
export interface FeedEvent {
  id: string;
  type: EventType;
  /** The exact JSON text sent. */
  payload: string;
  correlation_id: string;
  test: boolean;
  created_at: number;
  business_id: string | null;
  /** The event's position in its store, increasing in the order events were recorded. */
  seq: number;
}

/** Which events `listEvents` returns, by position ascending; every criterion given must hold. */
export interface FeedQuery {
  business_id: string;
  /** Only these types (already expanded from groups); absent for every type. */
  types?: readonly EventType[];
  /** Created at or after (ms). */
  created_after?: number;
  /** Created before (ms). */
  created_before?: number;
  /** Only events after this position (a cursor's). */
  after_seq?: number;
  /** Skip this many (a page number's offset). */
  offset?: number;
  limit: number;
}

/** How many events the criteria select (the page conventions' totals). */
export type FeedCountQuery = Omit<FeedQuery, 'limit' | 'offset' | 'after_seq'>;
