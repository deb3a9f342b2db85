import { inboxState, mergeState, recordState, type CatchUpCheckpoint, type CatchUpStore, type ReceivedState } from '../../ports/catch-up.js';
import { asPromise } from './as-promise.js';
import type { SqliteConnection } from './drivers.js';
import type { GroupCommit } from './group-commit.js';

interface CheckpointRow {
  name: string;
  cursor: string;
  last_event_id: string | null;
  last_event_created: number | null;
  updated_at: number;
}

/** Catch-up's checkpoints in the store's file (writes through its group commit), and the states of event ids. */
export function sqliteCatchUp(db: SqliteConnection, writes: GroupCommit): CatchUpStore {
  const sql = {
    get: db.prepare<[string], CheckpointRow>('SELECT name, cursor, last_event_id, last_event_created, updated_at FROM acct_webhook_catch_up WHERE name = ?'),
    save: db.prepare<CheckpointRow>(`INSERT INTO acct_webhook_catch_up (name, cursor, last_event_id, last_event_created, updated_at)
      VALUES (@name, @cursor, @last_event_id, @last_event_created, @updated_at)
      ON CONFLICT (name) DO UPDATE SET cursor = excluded.cursor, last_event_id = excluded.last_event_id,
        last_event_created = excluded.last_event_created, updated_at = excluded.updated_at`),
    delete: db.prepare<[string]>('DELETE FROM acct_webhook_catch_up WHERE name = ?'),
  };
  // One statement per table for a whole page of ids (json_each: no statement per list length).
  const states = {
    records: db.prepare<[string], { event_id: string; state: 'processing' | 'completed'; lease_until: number }>(
      'SELECT event_id, state, lease_until FROM acct_webhook_events WHERE event_id IN (SELECT value FROM json_each(?))',
    ),
    inbox: db.prepare<[string], { event_id: string; status: 'pending' | 'processing' | 'done' | 'dead' }>(
      'SELECT event_id, status FROM acct_webhook_inbox WHERE event_id IN (SELECT value FROM json_each(?))',
    ),
    quarantine: db.prepare<[string], { event_id: string }>(
      'SELECT DISTINCT event_id FROM acct_webhook_quarantine WHERE event_id IN (SELECT value FROM json_each(?))',
    ),
  };
  return {
    checkpoint: (name) => asPromise(() => sql.get.get(name) ?? undefined),
    saveCheckpoint: (checkpoint: CatchUpCheckpoint) => writes.write(() => void sql.save.run({ ...checkpoint })),
    deleteCheckpoint: (name) => writes.write(() => sql.delete.run(name).changes === 1),
    receivedStates: (eventIds, now) =>
      asPromise(() => {
        const ids = JSON.stringify([...eventIds]);
        const found = new Map<string, ReceivedState>();
        for (const row of states.records.all(ids)) mergeState(found, row.event_id, recordState(row.state, row.lease_until, now));
        for (const row of states.inbox.all(ids)) mergeState(found, row.event_id, inboxState(row.status));
        for (const row of states.quarantine.all(ids)) mergeState(found, row.event_id, 'quarantined');
        return found;
      }),
  };
}
