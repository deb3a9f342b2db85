import type { ObjectVersion, ObjectVersions } from '../../ports/versions.js';
import { asPromise } from './as-promise.js';
import type { SqliteConnection } from './drivers.js';

/** The ordering guard's table in the store's file; `record` runs inside the caller's transaction. */
export interface SqliteVersions extends ObjectVersions {
  record(version: ObjectVersion, now: number): void;
  prune(before: number): number;
}

export function sqliteVersions(db: SqliteConnection): SqliteVersions {
  const newest = db.prepare<[string], { event_created: number; ordering_rank: number; event_id: string }>(
    'SELECT event_created, ordering_rank, event_id FROM acct_webhook_object_versions WHERE ordering_key = ?',
  );
  // Kept only when newer: two events of one object completing in either order leave the newest.
  const upsert = db.prepare<[string, number, number, string, number]>(`INSERT INTO acct_webhook_object_versions
    (ordering_key, event_created, ordering_rank, event_id, updated_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (ordering_key) DO UPDATE SET event_created = excluded.event_created, ordering_rank = excluded.ordering_rank,
      event_id = excluded.event_id, updated_at = excluded.updated_at
    WHERE (excluded.event_created, excluded.ordering_rank, excluded.event_id) > (event_created, ordering_rank, event_id)`);
  const prune = db.prepare<[number]>('DELETE FROM acct_webhook_object_versions WHERE updated_at <= ?');
  return {
    newest: (key) =>
      asPromise(() => {
        const row = newest.get(key);
        return row ? { key, created: row.event_created, rank: row.ordering_rank, eventId: row.event_id } : undefined;
      }),
    record: (version, now) => void upsert.run(version.key, version.created, version.rank, version.eventId, now),
    prune: (before) => prune.run(before).changes,
  };
}
