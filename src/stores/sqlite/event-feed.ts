import type { FeedCountQuery, FeedEvent, FeedQuery } from '../../ports/event-feed.js';
import type { PreparedStatement as Statement, SqliteConnection } from './drivers.js';
import { EVENT_COLUMNS, toEvent, type EventRow } from './dispatch-rows.js';

type FeedRow = EventRow & { business_id: string | null; seq: number };

/**
 * The events feed on SQLite (the DispatchStore's listEvents, countEvents and getEvent): one
 * business's events by position, through dispatch_events_feed (business_id, seq). A statement is
 * prepared once per combination of criteria.
 */
export function sqliteEventFeed(db: SqliteConnection) {
  const prepared = new Map<string, Statement<[Record<string, unknown>], FeedRow & { n: number }>>();
  const statement = (key: string, text: () => string) => {
    let found = prepared.get(key);
    if (!found) {
      found = db.prepare<[Record<string, unknown>], FeedRow & { n: number }>(text());
      prepared.set(key, found);
    }
    return found;
  };
  const where = (query: FeedCountQuery & { after_seq?: number }): { conditions: string[]; values: Record<string, unknown> } => {
    const conditions = ['business_id = @business_id'];
    const values: Record<string, unknown> = { business_id: query.business_id };
    if (query.types !== undefined) {
      conditions.push('type IN (SELECT value FROM json_each(@types))');
      values.types = JSON.stringify(query.types);
    }
    if (query.created_after !== undefined) {
      conditions.push('created_at >= @created_after');
      values.created_after = query.created_after;
    }
    if (query.created_before !== undefined) {
      conditions.push('created_at < @created_before');
      values.created_before = query.created_before;
    }
    if (query.after_seq !== undefined) {
      conditions.push('seq > @after_seq');
      values.after_seq = query.after_seq;
    }
    return { conditions, values };
  };
  const toFeed = (row: FeedRow): FeedEvent => ({ ...toEvent(row), business_id: row.business_id, seq: row.seq });
  const get = db.prepare<[string], FeedRow>(`SELECT ${EVENT_COLUMNS}, business_id, seq FROM dispatch_events WHERE id = ?`);

  return {
    listEvents(query: FeedQuery): FeedEvent[] {
      const { conditions, values } = where(query);
      const text = `SELECT ${EVENT_COLUMNS}, business_id, seq FROM dispatch_events INDEXED BY dispatch_events_feed
        WHERE ${conditions.join(' AND ')} ORDER BY seq LIMIT @limit OFFSET @offset`;
      return statement(`list:${conditions.join()}`, () => text)
        .all({ ...values, limit: query.limit, offset: query.offset ?? 0 })
        .map(toFeed);
    },
    countEvents(query: FeedCountQuery): number {
      const { conditions, values } = where(query);
      return statement(`count:${conditions.join()}`, () => `SELECT count(*) AS n FROM dispatch_events INDEXED BY dispatch_events_feed WHERE ${conditions.join(' AND ')}`).get(values)!.n;
    },
    getEvent(id: string): FeedEvent | undefined {
      const row = get.get(id);
      return row ? toFeed(row) : undefined;
    },
  };
}
