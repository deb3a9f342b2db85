import type { MigrationSet } from '../migrations.js';

/**
 * The idempotency store's tables. Version 1 is the layout 0.x created on every start, and like
 * 0.x it creates only what is missing: a 0.x file (these tables, no versions table) is adopted
 * as version 1 with its records.
 */
export const STORE_MIGRATIONS: MigrationSet = {
  component: 'idempotency',
  migrations: [
    // A rowid table: rows are appended in arrival order and only the small (event_id → rowid)
    // index takes the random inserts of random event ids. Measured against WITHOUT ROWID, where
    // every row lands on a random page, claim + complete costs less than half (bench/).
    `
    CREATE TABLE IF NOT EXISTS acct_webhook_events (
      event_id      TEXT NOT NULL PRIMARY KEY,
      state         TEXT NOT NULL CHECK (state IN ('processing', 'completed')),
      token         TEXT NOT NULL,
      lease_until   INTEGER NOT NULL,
      event_type    TEXT,
      first_seen_at INTEGER NOT NULL,
      completed_at  INTEGER,
      claims        INTEGER NOT NULL DEFAULT 1
    );
    CREATE INDEX IF NOT EXISTS acct_webhook_events_completed ON acct_webhook_events (completed_at) WHERE state = 'completed';
    CREATE TABLE IF NOT EXISTS acct_webhook_quarantine (
      id                 TEXT PRIMARY KEY,
      key                TEXT NOT NULL UNIQUE,
      reason             TEXT NOT NULL,
      event_id           TEXT,
      event_type         TEXT,
      error_code         TEXT NOT NULL,
      error_message      TEXT NOT NULL,
      raw_body           BLOB NOT NULL,
      first_received_at  INTEGER NOT NULL,
      last_received_at   INTEGER NOT NULL,
      deliveries         INTEGER NOT NULL DEFAULT 1
    );
    `,
  ],
};
