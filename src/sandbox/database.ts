import type { SqliteConnection } from '../stores/sqlite/drivers.js';

/**
 * The sandbox's own tables, beside the Dispatcher's in the same SQLite file. Append only: a
 * released migration is never edited. Objects are kept as their JSON (the exact `data.object`
 * of their events); the columns are what lists sort and filter by.
 */
const SANDBOX_MIGRATIONS: readonly string[] = [
  `CREATE TABLE sandbox_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE sandbox_objects (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     kind TEXT NOT NULL,
     body TEXT NOT NULL
   );
   CREATE INDEX sandbox_objects_kind ON sandbox_objects (kind, seq);
   CREATE TABLE sandbox_webhooks (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     dispatcher_id TEXT NOT NULL UNIQUE,
     url TEXT NOT NULL,
     faults TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     deleted_at INTEGER
   );
   CREATE TABLE sandbox_faults (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     webhook_id TEXT NOT NULL,
     event_id TEXT NOT NULL,
     attempt_number INTEGER NOT NULL,
     kind TEXT NOT NULL,
     detail TEXT NOT NULL,
     at INTEGER NOT NULL
   );
   CREATE INDEX sandbox_faults_delivery ON sandbox_faults (webhook_id, event_id, seq);`,
  `CREATE TABLE sandbox_forwards (
     webhook_id TEXT NOT NULL,
     event_id TEXT NOT NULL,
     attempt_number INTEGER NOT NULL,
     receiver_ip TEXT,
     response_status INTEGER,
     error_kind TEXT,
     error_message TEXT,
     PRIMARY KEY (webhook_id, event_id, attempt_number)
   );`,
  // The account (its business) each object and registration belongs to; rows of a file made before
  // there were several accounts get the first account's when the sandbox opens it.
  `ALTER TABLE sandbox_objects ADD COLUMN business_id TEXT;
   ALTER TABLE sandbox_webhooks ADD COLUMN business_id TEXT;
   CREATE INDEX sandbox_objects_owner ON sandbox_objects (business_id, kind, seq);`,
];

/** Applies the sandbox migrations the file does not have yet, each in a transaction. */
export function migrateSandbox(db: SqliteConnection): void {
  db.exec('CREATE TABLE IF NOT EXISTS sandbox_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const current = (db.prepare('SELECT MAX(version) AS version FROM sandbox_migrations').get() as { version: number | null }).version ?? 0;
  SANDBOX_MIGRATIONS.slice(current).forEach((sql, index) => {
    db.transaction(() => {
      db.exec(sql);
      db.prepare('INSERT INTO sandbox_migrations (version, applied_at) VALUES (?, ?)').run(current + index + 1, Date.now());
    })();
  });
}

/** Gives rows without an owner (made before there were several accounts) to the first account. */
export function adoptUnowned(db: SqliteConnection, businessId: string): void {
  db.prepare('UPDATE sandbox_objects SET business_id = ? WHERE business_id IS NULL').run(businessId);
  db.prepare('UPDATE sandbox_webhooks SET business_id = ? WHERE business_id IS NULL').run(businessId);
}

/** A key-value row of `sandbox_state`: the clock's offset, the id counters, the test key. */
export class SandboxState {
  constructor(private readonly db: SqliteConnection) {}

  get<T>(key: string): T | undefined {
    const row = this.db.prepare('SELECT value FROM sandbox_state WHERE key = ?').get(key) as { value: string } | undefined;
    return row === undefined ? undefined : (JSON.parse(row.value) as T);
  }

  set(key: string, value: unknown): void {
    this.db.prepare('INSERT INTO sandbox_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, JSON.stringify(value));
  }
}
