import { MIGRATIONS_TABLE, pendingMigrations, type MigrationSet } from '../migrations.js';
import type { SqliteConnection } from './driver.js';

/**
 * Brings `set` up to its latest version in one IMMEDIATE transaction, so that two processes
 * opening a new file at once apply each migration once. Versions are kept in a table of their
 * own, per component (not PRAGMA user_version), because one file may hold both stores and an
 * application's own tables. Returns how many migrations were applied.
 * @throws ConfigurationError when a newer version of this package migrated the file
 */
export function migrate(db: SqliteConnection, set: MigrationSet): number {
  return db
    .transaction(() => {
      db.exec(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
        component  TEXT NOT NULL,
        version    INTEGER NOT NULL,
        applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        PRIMARY KEY (component, version)
      ) STRICT`);
      const row = db.prepare<[string], { version: number }>(`SELECT COALESCE(MAX(version), 0) AS version FROM ${MIGRATIONS_TABLE} WHERE component = ?`).get(set.component);
      const pending = pendingMigrations(set, row?.version ?? 0, 'database');
      const record = db.prepare<[string, number]>(`INSERT INTO ${MIGRATIONS_TABLE} (component, version) VALUES (?, ?)`);
      for (const { version, sql } of pending) {
        db.exec(sql);
        record.run(set.component, version);
      }
      return pending.length;
    })
    .immediate();
}
