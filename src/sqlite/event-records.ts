import type { EventRecord, EventRecordQuery, EventRecords, EventRecordState } from '../ports/event-records.js';
import { asPromise } from './as-promise.js';
import type { SqliteConnection } from './driver.js';

interface Row {
  event_id: string;
  event_type: string | null;
  state: EventRecordState;
  first_seen_at: number;
  completed_at: number | null;
  lease_until: number;
  claims: number;
}

const COLUMNS = 'event_id, event_type, state, first_seen_at, completed_at, lease_until, claims';

/** The idempotency records of a SQLite store, newest first (rows are appended in arrival order). */
export function sqliteEventRecords(db: SqliteConnection): EventRecords {
  const all = db.prepare<[number, number], Row>(`SELECT ${COLUMNS} FROM acct_webhook_events ORDER BY rowid DESC LIMIT ? OFFSET ?`);
  const inState = db.prepare<[string, number, number], Row>(`SELECT ${COLUMNS} FROM acct_webhook_events WHERE state = ? ORDER BY rowid DESC LIMIT ? OFFSET ?`);
  const countAll = db.prepare<[], { count: number }>('SELECT count(*) AS count FROM acct_webhook_events');
  const countState = db.prepare<[string], { count: number }>('SELECT count(*) AS count FROM acct_webhook_events WHERE state = ?');
  return {
    list: ({ state, limit, offset }: EventRecordQuery) =>
      asPromise(() => (state === undefined ? all.all(limit, offset) : inState.all(state, limit, offset)).map(toRecord)),
    count: (state) => asPromise(() => (state === undefined ? countAll.get() : countState.get(state))?.count ?? 0),
  };
}

function toRecord(row: Row): EventRecord {
  return {
    event_id: row.event_id,
    event_type: row.event_type,
    state: row.state,
    first_seen_at: new Date(row.first_seen_at).toISOString(),
    completed_at: row.completed_at === null ? null : new Date(row.completed_at).toISOString(),
    lease_until: row.state === 'processing' ? new Date(row.lease_until).toISOString() : null,
    claims: row.claims,
  };
}
