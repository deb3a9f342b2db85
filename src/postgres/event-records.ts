import { EVENT_RECORD_FIELDS, toEventRecord, type EventRecord, type EventRecordQuery, type EventRecords } from '../ports/event-records.js';
import { rowMapping } from '../ports/fields.js';
import { POSTGRES_CODECS } from './codecs.js';
import type { PostgresQueryable } from './pool.js';
import { run, type Prepare, type Statement } from './statement.js';

const eventRecordRows = rowMapping(EVENT_RECORD_FIELDS, POSTGRES_CODECS);
const COLUMNS = eventRecordRows.columns.join(', ');

/** A row as the driver returns it. */
type Row = Record<string, unknown>;

/** The idempotency records of a PostgreSQL store, newest first (by first sight, then id). */
export function postgresEventRecords(pool: PostgresQueryable, table: string, { ready, prepare }: { ready: () => Promise<void>; prepare: Prepare }): EventRecords {
  const sql = {
    list: prepare(`SELECT ${COLUMNS} FROM ${table}
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
  return toEventRecord(eventRecordRows.read(row));
}
