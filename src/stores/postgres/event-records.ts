import { EVENT_RECORD_FIELDS, EVENT_RECORD_STATES, toEventRecord, type EventRecord, type EventRecordQuery, type EventRecords } from '../../ports/event-records.js';
import { rowMapping } from '../../ports/fields.js';
import { POSTGRES_CODECS } from './codecs.js';
import type { PostgresQueryable } from './pool.js';
import { run, type Prepare, type Statement } from './statement.js';

const eventRecordRows = rowMapping(EVENT_RECORD_FIELDS, POSTGRES_CODECS);
const COLUMNS = eventRecordRows.columns.join(', ');

/** A row as the driver returns it. */
type Row = Record<string, unknown>;

/**
 * The idempotency records of a PostgreSQL store, newest first (by first sight, then id). Each
 * state is read backwards along the (state, first_seen_at, lease_until) index; all records are
 * the two states' ordered reads merged (a Merge Append), each stopping after the page: ordering
 * the whole table instead sorted every record on every page (180 ms for 84 000, bench/history.md).
 */
export function postgresEventRecords(pool: PostgresQueryable, table: string, { ready, prepare }: { ready: () => Promise<void>; prepare: Prepare }): EventRecords {
  const ORDER = 'ORDER BY first_seen_at DESC, event_id DESC';
  const sql = {
    list: prepare(`SELECT ${COLUMNS} FROM (${EVENT_RECORD_STATES.map((state) => `(SELECT ${COLUMNS} FROM ${table} WHERE state = '${state}' ${ORDER} LIMIT $1::int + $2::int)`).join(' UNION ALL ')}) AS records
      ${ORDER} LIMIT $1 OFFSET $2`),
    listState: prepare(`SELECT ${COLUMNS} FROM ${table} WHERE state = $1 ${ORDER} LIMIT $2 OFFSET $3`),
    count: prepare(`SELECT count(*)::int AS count FROM ${table}`),
    countState: prepare(`SELECT count(*)::int AS count FROM ${table} WHERE state = $1`),
  };
  const query = async <T>(statement: Statement, values: unknown[]): Promise<T[]> => {
    await ready();
    return (await run(pool, statement, values)).rows as T[];
  };
  return {
    list: async ({ state, limit, offset }: EventRecordQuery) =>
      (await (state === undefined ? query<Row>(sql.list, [limit, offset]) : query<Row>(sql.listState, [state, limit, offset]))).map(toRecord),
    count: async (state) => (await (state === undefined ? query<{ count: number }>(sql.count, []) : query<{ count: number }>(sql.countState, [state])))[0]?.count ?? 0,
  };
}

function toRecord(row: Row): EventRecord {
  return toEventRecord(eventRecordRows.read(row));
}
