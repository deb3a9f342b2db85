import type { FeedCountQuery, FeedEvent, FeedQuery } from '../../ports/event-feed.js';
import { toEvent, type EventRow } from './dispatch-rows.js';
import { int8, readInt8 } from './int8.js';

export type FeedRow = EventRow & { business_id: string | null; seq: unknown };

const COLUMNS = 'id, type, payload, correlation_id, test, created_at, business_id, seq';

/** A feed row as the store returns it. */
export function toFeedEvent(row: FeedRow): FeedEvent {
  return { ...toEvent(row), business_id: row.business_id, seq: readInt8(row.seq, 'seq') };
}

/**
 * The statements of the events feed on PostgreSQL (listEvents, countEvents): one business's
 * events by position, through dispatch_events_feed (business_id, seq). Returns the text and values.
 */
export function feedStatement(table: string, query: FeedQuery | FeedCountQuery, count: boolean): { text: string; values: unknown[] } {
  const values: unknown[] = [query.business_id];
  const add = (value: unknown): string => `$${values.push(value)}`;
  const conditions = ['business_id = $1'];
  if (query.types !== undefined) conditions.push(`type = ANY(${add([...query.types])}::text[])`);
  if (query.created_after !== undefined) conditions.push(`created_at >= ${add(int8(query.created_after, 'created_after'))}`);
  if (query.created_before !== undefined) conditions.push(`created_at < ${add(int8(query.created_before, 'created_before'))}`);
  if (count) return { text: `SELECT count(*) AS n FROM ${table} WHERE ${conditions.join(' AND ')}`, values };
  const page = query as FeedQuery;
  if (page.after_seq !== undefined) conditions.push(`seq > ${add(int8(page.after_seq, 'after_seq'))}`);
  const limit = add(page.limit);
  const offset = add(page.offset ?? 0);
  return { text: `SELECT ${COLUMNS} FROM ${table} WHERE ${conditions.join(' AND ')} ORDER BY seq LIMIT ${limit} OFFSET ${offset}`, values };
}
