import type { Database } from 'better-sqlite3';
import { ConfigurationError } from '../errors.js';

/*
 * Versioned migrations for the SQLite storage. Applied versions are kept in their own table
 * (not PRAGMA user_version) because the file may be shared with other parts of an application,
 * such as the receiver's idempotency store. Tables carry a `dispatch_` prefix for the same reason.
 */

const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE dispatch_webhooks (
    id TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    headers TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
    secret TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    deleted_at INTEGER
  ) STRICT;

  CREATE TABLE dispatch_events (
    id TEXT PRIMARY KEY,
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    correlation_id TEXT NOT NULL,
    test INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE dispatch_deliveries (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    event_id TEXT NOT NULL REFERENCES dispatch_events (id),
    webhook_id TEXT NOT NULL REFERENCES dispatch_webhooks (id),
    event_type TEXT NOT NULL,
    correlation_id TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('retrying', 'delivered', 'finally_failed')),
    attempt_count INTEGER NOT NULL DEFAULT 0,
    automatic_attempt_count INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,
    lease_owner TEXT,
    lease_until INTEGER,
    test INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (event_id, webhook_id)
  ) STRICT;

  -- The worker's only two questions: what is due now, and when is the next one due.
  CREATE INDEX dispatch_deliveries_due ON dispatch_deliveries (status, next_attempt_at);
  CREATE INDEX dispatch_deliveries_webhook ON dispatch_deliveries (webhook_id, seq);
  CREATE INDEX dispatch_deliveries_created ON dispatch_deliveries (created_at);

  CREATE TABLE dispatch_attempts (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    delivery_id TEXT NOT NULL REFERENCES dispatch_deliveries (id),
    webhook_id TEXT NOT NULL,
    url TEXT NOT NULL,
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    attempt_number INTEGER NOT NULL,
    attempted_at INTEGER NOT NULL,
    response_status INTEGER,
    response_time_ms INTEGER NOT NULL,
    receiver_ip TEXT,
    correlation_id TEXT NOT NULL,
    response_body TEXT,
    response_body_truncated INTEGER NOT NULL,
    error_kind TEXT,
    error_message TEXT,
    manual INTEGER NOT NULL,
    test INTEGER NOT NULL
  ) STRICT;

  CREATE INDEX dispatch_attempts_delivery ON dispatch_attempts (delivery_id, seq);
  CREATE INDEX dispatch_attempts_time ON dispatch_attempts (attempted_at);
  `,
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the schema up to {@link SCHEMA_VERSION}. Runs in one IMMEDIATE transaction, so two
 * processes opening a new file at once apply each migration once.
 */
export function migrate(db: Database): void {
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS dispatch_schema_migrations (
      version INTEGER PRIMARY KEY,
      applied_at TEXT NOT NULL
    ) STRICT`);
    const row = db.prepare<[], { version: number | null }>('SELECT MAX(version) AS version FROM dispatch_schema_migrations').get();
    const current = row?.version ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new ConfigurationError(
        { option: 'database', reason: `has schema version ${current}; this version of acct-webhook knows up to ${SCHEMA_VERSION}` },
        `The dispatch database has schema version ${current}; this version of acct-webhook knows up to ${SCHEMA_VERSION}. Upgrade acct-webhook.`,
      );
    }
    const record = db.prepare<[number, string]>('INSERT INTO dispatch_schema_migrations (version, applied_at) VALUES (?, ?)');
    MIGRATIONS.slice(current).forEach((sql, index) => {
      db.exec(sql);
      record.run(current + index + 1, new Date().toISOString());
    });
  }).immediate();
}
