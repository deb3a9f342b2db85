import type { MigrationSet } from '../migrations.js';

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
  ],
};
