import { EVENT_RECORD_FIELDS, toEventRecord, type EventRecord, type EventRecordQuery, type EventRecords } from '../../ports/event-records.js';
import { rowMapping } from '../../ports/fields.js';
import { SQLITE_CODECS } from './codecs.js';
import { asPromise } from './as-promise.js';
import type { SqliteConnection } from './drivers.js';

const eventRecordRows = rowMapping(EVENT_RECORD_FIELDS, SQLITE_CODECS);
const COLUMNS = eventRecordRows.columns.join(', ');

/** A row as the driver returns it. */
type Row = Record<string, unknown>;

/** The idempotency records of a SQLite store, newest first (rows are appended in arrival order). */
export function sqliteEventRecords(db: SqliteConnection): EventRecords {
  const all = db.prepare<[number, number], Row>(`SELECT ${COLUMNS} FROM acct_webhook_events ORDER BY rowid DESC LIMIT ? OFFSET ?`);
  // "+state": walk the table newest first and skip the other state's rows. Searched through the
  // (state, first_seen_at, lease_until) index that counts use, every row of the state would be
  // sorted by rowid first: 200 ms for 80 000 handled events (bench/history.md).
  const inState = db.prepare<[string, number, number], Row>(`SELECT ${COLUMNS} FROM acct_webhook_events WHERE +state = ? ORDER BY rowid DESC LIMIT ? OFFSET ?`);
  const countAll = db.prepare<[], { count: number }>('SELECT count(*) AS count FROM acct_webhook_events');
  const countState = db.prepare<[string], { count: number }>('SELECT count(*) AS count FROM acct_webhook_events WHERE state = ?');
  return {
    list: ({ state, limit, offset }: EventRecordQuery) =>
      asPromise(() => (state === undefined ? all.all(limit, offset) : inState.all(state, limit, offset)).map(toRecord)),
    count: (state) => asPromise(() => (state === undefined ? countAll.get() : countState.get(state))?.count ?? 0),
  };
}

function toRecord(row: Row): EventRecord {
  return toEventRecord(eventRecordRows.read(row));
}
