import type { MigrationSet } from '../../ports/migrations.js';

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
    // 3: STRICT tables, as the dispatch store's are: a value of the wrong type is refused instead
    // of kept as whatever SQLite made of it. Each table is rebuilt with its rows (whole numbers
    // cast, as they were meant) and its indexes; the columns are those of versions 1 and 2.
    `
    CREATE TABLE acct_webhook_events_v3 (
      event_id      TEXT NOT NULL PRIMARY KEY,
      state         TEXT NOT NULL CHECK (state IN ('processing', 'completed')),
      token         TEXT NOT NULL,
      lease_until   INTEGER NOT NULL,
      event_type    TEXT,
      first_seen_at INTEGER NOT NULL,
      completed_at  INTEGER,
      claims        INTEGER NOT NULL DEFAULT 1
    ) STRICT;
    INSERT INTO acct_webhook_events_v3 (event_id, state, token, lease_until, event_type, first_seen_at, completed_at, claims)
      SELECT event_id, state, token, CAST(lease_until AS INTEGER), event_type, CAST(first_seen_at AS INTEGER), CAST(completed_at AS INTEGER), CAST(claims AS INTEGER)
      FROM acct_webhook_events ORDER BY rowid;
    DROP TABLE acct_webhook_events;
    ALTER TABLE acct_webhook_events_v3 RENAME TO acct_webhook_events;
    CREATE INDEX acct_webhook_events_completed ON acct_webhook_events (completed_at) WHERE state = 'completed';

    CREATE TABLE acct_webhook_quarantine_v3 (
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
    ) STRICT;
    INSERT INTO acct_webhook_quarantine_v3
      SELECT id, key, reason, event_id, event_type, error_code, error_message, CAST(raw_body AS BLOB),
        CAST(first_received_at AS INTEGER), CAST(last_received_at AS INTEGER), CAST(deliveries AS INTEGER)
      FROM acct_webhook_quarantine;
    DROP TABLE acct_webhook_quarantine;
    ALTER TABLE acct_webhook_quarantine_v3 RENAME TO acct_webhook_quarantine;

    CREATE TABLE acct_webhook_inbox_v3 (
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
    ) STRICT;
    INSERT INTO acct_webhook_inbox_v3
      SELECT event_id, event_type, status, CAST(raw_body AS BLOB), headers, CAST(received_at AS INTEGER), CAST(event_created AS INTEGER),
        ordering_key, CAST(ordering_rank AS INTEGER), CAST(attempts AS INTEGER), CAST(next_attempt_at AS INTEGER), token,
        CAST(lease_until AS INTEGER), last_error_code, last_error_message, CAST(stale AS INTEGER), CAST(completed_at AS INTEGER)
      FROM acct_webhook_inbox ORDER BY rowid;
    DROP TABLE acct_webhook_inbox;
    ALTER TABLE acct_webhook_inbox_v3 RENAME TO acct_webhook_inbox;
    CREATE INDEX acct_webhook_inbox_due ON acct_webhook_inbox (status, next_attempt_at);
    CREATE INDEX acct_webhook_inbox_object ON acct_webhook_inbox (ordering_key, event_created, ordering_rank, event_id) WHERE ordering_key IS NOT NULL;
    CREATE INDEX acct_webhook_inbox_completed ON acct_webhook_inbox (completed_at) WHERE status = 'done';

    CREATE TABLE acct_webhook_object_versions_v3 (
      ordering_key  TEXT NOT NULL PRIMARY KEY,
      event_created INTEGER NOT NULL,
      ordering_rank INTEGER NOT NULL,
      event_id      TEXT NOT NULL,
      updated_at    INTEGER NOT NULL
    ) STRICT;
    INSERT INTO acct_webhook_object_versions_v3
      SELECT ordering_key, CAST(event_created AS INTEGER), CAST(ordering_rank AS INTEGER), event_id, CAST(updated_at AS INTEGER)
      FROM acct_webhook_object_versions;
    DROP TABLE acct_webhook_object_versions;
    ALTER TABLE acct_webhook_object_versions_v3 RENAME TO acct_webhook_object_versions;
    CREATE INDEX acct_webhook_object_versions_updated ON acct_webhook_object_versions (updated_at);
    `,
    // 4: the dashboard's reads walk indexes instead of the tables (bench/history.md, "The
    // dashboard's reads"). Counts by state and the charts' counts per time bucket read the indexes alone
    // (covering); the inbox's pages are read newest first along an index per filter (status,
    // type, none), so a page costs its offset in index entries, not a sort of the inbox.
    `
    CREATE INDEX acct_webhook_events_state ON acct_webhook_events (state, first_seen_at, lease_until);
    CREATE INDEX acct_webhook_inbox_received ON acct_webhook_inbox (received_at DESC, event_id, stale);
    CREATE INDEX acct_webhook_inbox_status ON acct_webhook_inbox (status, received_at DESC, event_id, stale);
    CREATE INDEX acct_webhook_inbox_type ON acct_webhook_inbox (event_type, received_at DESC, event_id);
    CREATE INDEX acct_webhook_quarantine_received ON acct_webhook_quarantine (first_received_at);
    `,
    // 5: fewer inbox index entries to write per event (bench/history.md, "Inbox mode's writes").
    // Each commit writes every page it changed to the WAL, and the checkpoint writes it again;
    // index entries, not the row, made most of those pages:
    // - due: only pending events (a claim removes the entry, a completion does not touch it);
    //   expired leases are found through the status index (few events are processing at a time);
    // - completed: gone; pruning reads done events by arrival from the status index (an event
    //   completes after it arrives) and checks completed_at on the rows it deletes;
    // - type: gone; event_type is the last column of the received and status indexes, so a type
    //   filter reads those indexes alone (a scan of index entries, not of the table);
    // - received and status: received_at ascending, event_id descending, read backwards for
    //   newest first (the same order as before): new entries go to the end of their range instead
    //   of its start, where every insert into a full page made SQLite rebalance it with its
    //   neighbours.
    `
    DROP INDEX acct_webhook_inbox_due;
    DROP INDEX acct_webhook_inbox_completed;
    DROP INDEX acct_webhook_inbox_received;
    DROP INDEX acct_webhook_inbox_status;
    DROP INDEX acct_webhook_inbox_type;
    CREATE INDEX acct_webhook_inbox_due ON acct_webhook_inbox (status, next_attempt_at) WHERE status = 'pending';
    CREATE INDEX acct_webhook_inbox_received ON acct_webhook_inbox (received_at, event_id DESC, stale, event_type);
    CREATE INDEX acct_webhook_inbox_status ON acct_webhook_inbox (status, received_at, event_id DESC, stale, event_type);
    `,
    // 6: catch-up's checkpoints (the events feed's cursor per name), and the quarantine by event
    // id, for the reconciliation report's lookups.
    `
    CREATE TABLE acct_webhook_catch_up (
      name               TEXT NOT NULL PRIMARY KEY,
      cursor             TEXT NOT NULL,
      last_event_id      TEXT,
      last_event_created INTEGER,
      updated_at         INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX acct_webhook_quarantine_event ON acct_webhook_quarantine (event_id) WHERE event_id IS NOT NULL;
    `,
  ],
};
