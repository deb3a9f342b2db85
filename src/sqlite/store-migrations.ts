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
    // 2: the durable inbox (inbox mode) and the newest handled event per object (ordering guard).
    `
    CREATE TABLE acct_webhook_inbox (
      event_id           TEXT NOT NULL PRIMARY KEY,
      event_type         TEXT NOT NULL,
      status             TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'done', 'dead')),
      raw_body           BLOB NOT NULL,
      headers            TEXT NOT NULL,
      received_at        INTEGER NOT NULL,
      event_created      INTEGER NOT NULL,
      ordering_key       TEXT,
      ordering_rank      INTEGER NOT NULL DEFAULT 0,
      attempts           INTEGER NOT NULL DEFAULT 0,
      next_attempt_at    INTEGER NOT NULL,
      token              TEXT,
      lease_until        INTEGER NOT NULL DEFAULT 0,
      last_error_code    TEXT,
      last_error_message TEXT,
      stale              INTEGER NOT NULL DEFAULT 0,
      completed_at       INTEGER
    );
    -- Workers look for due work, and for what holds an object back.
    CREATE INDEX acct_webhook_inbox_due ON acct_webhook_inbox (status, next_attempt_at);
    CREATE INDEX acct_webhook_inbox_object ON acct_webhook_inbox (ordering_key, event_created, ordering_rank, event_id) WHERE ordering_key IS NOT NULL;
    CREATE INDEX acct_webhook_inbox_completed ON acct_webhook_inbox (completed_at) WHERE status = 'done';
    CREATE TABLE acct_webhook_object_versions (
      ordering_key  TEXT NOT NULL PRIMARY KEY,
      event_created INTEGER NOT NULL,
      ordering_rank INTEGER NOT NULL,
      event_id      TEXT NOT NULL,
      updated_at    INTEGER NOT NULL
    );
    CREATE INDEX acct_webhook_object_versions_updated ON acct_webhook_object_versions (updated_at);
    `,
  ],
};
