import { MIGRATIONS_TABLE, pendingMigrations, type MigrationSet } from '../../ports/migrations.js';
import type { SqliteConnection } from './drivers.js';

/**
 * Brings `set` up to its latest version in one IMMEDIATE transaction, so that two processes
 * opening a new file at once apply each migration once. Versions are kept in a table of their
 * own, per component (not PRAGMA user_version), because one file may hold both stores and an
 * application's own tables. Returns how many migrations were applied.
 * @throws ConfigurationError when a newer version of this package migrated the file
 */
export function migrate(db: SqliteConnection, set: MigrationSet): number {
  // Every start of every process comes here: when nothing is to be done, a read answers without
  // taking the write lock that another process may be holding.
  if (recordedVersion(db, set) === set.migrations.length) return 0;
  // A migration may rebuild a table (SQLite cannot drop a constraint), which foreign keys would
  // refuse half-way: they are off while migrating (the pragma is ignored inside a transaction) and
  // checked as a whole before the commit.
  const foreignKeys = Number(db.pragma('foreign_keys', { simple: true })) === 1;
  if (foreignKeys) db.pragma('foreign_keys = OFF');
  try {
    return applyPending(db, set);
  } finally {
    if (foreignKeys) db.pragma('foreign_keys = ON');
  }
}

function applyPending(db: SqliteConnection, set: MigrationSet): number {
  return db
    .transaction(() => {
      db.exec(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
        component  TEXT NOT NULL,
        version    INTEGER NOT NULL,
        applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        PRIMARY KEY (component, version)
      ) STRICT`);
      const pending = pendingMigrations(set, recordedVersion(db, set) ?? 0, 'database');
      const record = db.prepare<[string, number]>(`INSERT INTO ${MIGRATIONS_TABLE} (component, version) VALUES (?, ?)`);
      for (const { version, sql } of pending) {
        db.exec(sql);
        record.run(set.component, version);
      }
      const broken = db.prepare('PRAGMA foreign_key_check').all();
      if (broken.length > 0) throw new Error(`Migrating ${set.component} would leave ${broken.length} rows whose references point nowhere`);
      return pending.length;
    })
    .immediate();
}

/** The component's version as the file records it; `null` before the versions table exists. */
function recordedVersion(db: SqliteConnection, set: MigrationSet): number | null {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(MIGRATIONS_TABLE);
  if (table === undefined) return null;
  const row = db.prepare<[string], { version: number }>(`SELECT COALESCE(MAX(version), 0) AS version FROM ${MIGRATIONS_TABLE} WHERE component = ?`).get(set.component);
  return row?.version ?? 0;
}
