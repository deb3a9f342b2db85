import type { MigrationSet } from '../../ports/migrations.js';

/**
 * The idempotency store's tables: the same columns as the SQLite store, times as bigint
 * milliseconds. Append only: a released version's migration is never edited, a change is a new one.
 */
export const STORE_MIGRATIONS: MigrationSet = {
  component: 'idempotency',
  migrations: [
    `
    CREATE TABLE acct_webhook_events (
      event_id      text PRIMARY KEY,
      state         text NOT NULL CHECK (state IN ('processing', 'completed')),
      token         text NOT NULL,
      lease_until   bigint NOT NULL,
      event_type    text,
      first_seen_at bigint NOT NULL,
      completed_at  bigint,
      claims        integer NOT NULL DEFAULT 1
    );
    -- Pruning reads completed records by age only.
    CREATE INDEX acct_webhook_events_completed ON acct_webhook_events (completed_at) WHERE state = 'completed';

    CREATE TABLE acct_webhook_quarantine (
      id                text PRIMARY KEY,
      key               text NOT NULL UNIQUE,
      reason            text NOT NULL,
      event_id          text,
      event_type        text,
      error_code        text NOT NULL,
      error_message     text NOT NULL,
      raw_body          bytea NOT NULL,
      first_received_at bigint NOT NULL,
      last_received_at  bigint NOT NULL,
      deliveries        integer NOT NULL DEFAULT 1
    );
    `,
    // 2: the durable inbox (inbox mode) and the newest handled event per object (ordering guard).
    `
    CREATE TABLE acct_webhook_inbox (
      event_id           text PRIMARY KEY,
      event_type         text NOT NULL,
      status             text NOT NULL CHECK (status IN ('pending', 'processing', 'done', 'dead')),
      raw_body           bytea NOT NULL,
      headers            text NOT NULL,
      received_at        bigint NOT NULL,
      event_created      bigint NOT NULL,
      ordering_key       text,
      ordering_rank      integer NOT NULL DEFAULT 0,
      attempts           integer NOT NULL DEFAULT 0,
      next_attempt_at    bigint NOT NULL,
      token              text,
      lease_until        bigint NOT NULL DEFAULT 0,
      last_error_code    text,
      last_error_message text,
      stale              boolean NOT NULL DEFAULT false,
      completed_at       bigint
    );
    CREATE INDEX acct_webhook_inbox_due ON acct_webhook_inbox (status, next_attempt_at);
    CREATE INDEX acct_webhook_inbox_object ON acct_webhook_inbox (ordering_key, event_created, ordering_rank, event_id) WHERE ordering_key IS NOT NULL;
    CREATE INDEX acct_webhook_inbox_completed ON acct_webhook_inbox (completed_at) WHERE status = 'done';
    CREATE TABLE acct_webhook_object_versions (
      ordering_key  text PRIMARY KEY,
      event_created bigint NOT NULL,
      ordering_rank integer NOT NULL,
      event_id      text NOT NULL,
      updated_at    bigint NOT NULL
    );
    CREATE INDEX acct_webhook_object_versions_updated ON acct_webhook_object_versions (updated_at);
    `,
    // 3: in step with SQLite's version 3, which made its tables STRICT: PostgreSQL's columns are
    // typed already. Nothing to do.
    `-- In step with SQLite's version 3 (STRICT tables): PostgreSQL's columns are typed already.`,
    // 4: the indexes of SQLite's version 4, for the dashboard's reads (bench/history.md, "The
    // dashboard's reads"): counts by state and per time bucket from the indexes (index-only scans once
    // vacuumed), the inbox's pages newest first along an index per filter. Built in the migration's
    // transaction: writes to these tables wait until they are built (seconds for a million rows).
    `
    CREATE INDEX acct_webhook_events_state ON acct_webhook_events (state, first_seen_at, lease_until);
    CREATE INDEX acct_webhook_inbox_received ON acct_webhook_inbox (received_at DESC, event_id, stale);
    CREATE INDEX acct_webhook_inbox_status ON acct_webhook_inbox (status, received_at DESC, event_id, stale);
    CREATE INDEX acct_webhook_inbox_type ON acct_webhook_inbox (event_type, received_at DESC, event_id);
    CREATE INDEX acct_webhook_quarantine_received ON acct_webhook_quarantine (first_received_at);
    `,
    // 5: the inbox indexes of SQLite's version 5 (fewer entries to write per event, see there).
    // PostgreSQL writes a new entry in every index of the table for each update of an inbox row
    // (its status is indexed, so no update is HOT): two indexes less is two entries less per
    // claim and per completion. Built in the migration's transaction, as version 4's.
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
    // 6: SQLite's version 6: catch-up's checkpoints, and the quarantine by event id.
    `
    CREATE TABLE acct_webhook_catch_up (
      name               text PRIMARY KEY,
      cursor             text NOT NULL,
      last_event_id      text,
      last_event_created bigint,
      updated_at         bigint NOT NULL
    );
    CREATE INDEX acct_webhook_quarantine_event ON acct_webhook_quarantine (event_id) WHERE event_id IS NOT NULL;
    `,
  ],
};
