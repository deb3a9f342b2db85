import type { EventRecord, EventRecordQuery, EventRecords, EventRecordState } from '../ports/event-records.js';
import { readInt8, readNullableInt8 } from './int8.js';
import type { PostgresQueryable } from './pool.js';
import { run, type Prepare, type Statement } from './statement.js';
import { decodeNullableText, decodeText } from './text-codec.js';

interface Row {
  event_id: string;
  event_type: string | null;
  state: EventRecordState;
  first_seen_at: unknown;
  completed_at: unknown;
  lease_until: unknown;
  claims: number;
}

/** The idempotency records of a PostgreSQL store, newest first (by first sight, then id). */
export function postgresEventRecords(pool: PostgresQueryable, table: string, { ready, prepare }: { ready: () => Promise<void>; prepare: Prepare }): EventRecords {
  const sql = {
    list: prepare(`SELECT event_id, event_type, state, first_seen_at, completed_at, lease_until, claims FROM ${table}
      WHERE $1::text IS NULL OR state = $1 ORDER BY first_seen_at DESC, event_id DESC LIMIT $2 OFFSET $3`),
    count: prepare(`SELECT count(*)::int AS count FROM ${table} WHERE $1::text IS NULL OR state = $1`),
  };
  const query = async <T>(statement: Statement, values: unknown[]): Promise<T[]> => {
    await ready();
    return (await run(pool, statement, values)).rows as T[];
  };
  return {
    list: async ({ state, limit, offset }: EventRecordQuery) => (await query<Row>(sql.list, [state ?? null, limit, offset])).map(toRecord),
    count: async (state) => (await query<{ count: number }>(sql.count, [state ?? null]))[0]?.count ?? 0,
  };
}

function toRecord(row: Row): EventRecord {
  const completedAt = readNullableInt8(row.completed_at, 'completed_at');
  return {
    event_id: decodeText(row.event_id),
    event_type: decodeNullableText(row.event_type),
    state: row.state,
    first_seen_at: new Date(readInt8(row.first_seen_at, 'first_seen_at')).toISOString(),
    completed_at: completedAt === null ? null : new Date(completedAt).toISOString(),
    lease_until: row.state === 'processing' ? new Date(readInt8(row.lease_until, 'lease_until')).toISOString() : null,
    claims: row.claims,
  };
}
