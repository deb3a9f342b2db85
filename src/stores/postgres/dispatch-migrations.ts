import type { MigrationSet } from '../../ports/migrations.js';

/**
 * The dispatcher's tables: the SQLite storage's layout in PostgreSQL types (times as bigint
 * milliseconds, flags as boolean, registration lists as json, which keeps the order of header
 * names). Append only: a released version's migration is never edited, a change is a new one.
 */
export const DISPATCH_MIGRATIONS: MigrationSet = {
  component: 'dispatch',
  migrations: [
    `
    CREATE TABLE dispatch_webhooks (
      seq        bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      id         text PRIMARY KEY,
      url        text NOT NULL,
      events     json NOT NULL,
      headers    json NOT NULL,
      status     text NOT NULL CHECK (status IN ('active', 'disabled')),
      secret     text NOT NULL,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      deleted_at bigint
    );

    CREATE TABLE dispatch_events (
      id             text PRIMARY KEY,
      type           text NOT NULL,
      payload        text NOT NULL,
      correlation_id text NOT NULL,
      test           boolean NOT NULL,
      created_at     bigint NOT NULL
    );

    CREATE TABLE dispatch_deliveries (
      seq                     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id                      text NOT NULL UNIQUE,
      event_id                text NOT NULL REFERENCES dispatch_events (id),
      webhook_id              text NOT NULL REFERENCES dispatch_webhooks (id),
      event_type              text NOT NULL,
      correlation_id          text NOT NULL,
      status                  text NOT NULL CHECK (status IN ('retrying', 'delivered', 'finally_failed')),
      -- The webhook's status, copied here (kept in step by updateWebhook), so that the queue needs
      -- no join: a disabled webhook's deliveries leave the due index and cost a claim nothing.
      webhook_active          boolean NOT NULL,
      attempt_count           integer NOT NULL DEFAULT 0,
      automatic_attempt_count integer NOT NULL DEFAULT 0,
      next_attempt_at         bigint,
      lease_owner             text,
      lease_until             bigint,
      test                    boolean NOT NULL,
      created_at              bigint NOT NULL,
      updated_at              bigint NOT NULL,
      UNIQUE (event_id, webhook_id)
    );

    -- The queue: only deliveries that can be sent, by due time (a lease's end included). Delivered
    -- and failed rows, the bulk of the table, and those of disabled webhooks are not in it.
    CREATE INDEX dispatch_deliveries_due ON dispatch_deliveries (next_attempt_at) WHERE status = 'retrying' AND webhook_active;
    CREATE INDEX dispatch_deliveries_webhook ON dispatch_deliveries (webhook_id) WHERE status = 'retrying';
    CREATE INDEX dispatch_deliveries_created ON dispatch_deliveries (created_at);

    CREATE TABLE dispatch_attempts (
      seq                     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id                      text NOT NULL UNIQUE,
      delivery_id             text NOT NULL REFERENCES dispatch_deliveries (id),
      webhook_id              text NOT NULL,
      url                     text NOT NULL,
      event_id                text NOT NULL,
      event_type              text NOT NULL,
      attempt_number          integer NOT NULL,
      attempted_at            bigint NOT NULL,
      response_status         integer,
      response_time_ms        integer NOT NULL,
      receiver_ip             text,
      correlation_id          text NOT NULL,
      response_body           text,
      response_body_truncated boolean NOT NULL,
      error_kind              text,
      error_message           text,
      manual                  boolean NOT NULL,
      test                    boolean NOT NULL,
      -- Recorded under the delivery's row lock: a number used twice would be a bug, refused here.
      UNIQUE (delivery_id, attempt_number)
    );
    CREATE INDEX dispatch_attempts_time ON dispatch_attempts (attempted_at);
    `,
    // Isolation and failing endpoints (as SQLite's version 3): each registration's health and
    // optional rate limit with its state; the queue per registration; the leased deliveries
    // (attempts in flight, counted against the cap); events not sent while disabled, for a replay.
    `
    ALTER TABLE dispatch_webhooks
      ADD COLUMN failure_streak  integer NOT NULL DEFAULT 0,
      ADD COLUMN failing_since   bigint,
      ADD COLUMN last_failure_at bigint,
      ADD COLUMN disabled_at     bigint,
      ADD COLUMN disabled_reason text CHECK (disabled_reason IN ('manual', 'failing')),
      ADD COLUMN rate_limit      double precision,
      ADD COLUMN rate_tat        double precision,
      ADD COLUMN delivered_streak integer NOT NULL DEFAULT 0;
    UPDATE dispatch_webhooks SET disabled_at = updated_at, disabled_reason = 'manual' WHERE status = 'disabled';

    CREATE INDEX dispatch_deliveries_queue ON dispatch_deliveries (webhook_id, next_attempt_at, seq) WHERE status = 'retrying' AND webhook_active;
    CREATE INDEX dispatch_deliveries_leased ON dispatch_deliveries (webhook_id) WHERE lease_owner IS NOT NULL;

    CREATE TABLE dispatch_skipped (
      webhook_id text NOT NULL REFERENCES dispatch_webhooks (id),
      event_id   text NOT NULL REFERENCES dispatch_events (id),
      skipped_at bigint NOT NULL,
      PRIMARY KEY (webhook_id, event_id)
    );
    `,
    // 3 and 4 keep the numbering in step with SQLite, so that from version 4 on a version is the
    // same schema on both backends: SQLite's version 2 (the webhook's status on its deliveries)
    // was part of version 1 here and its version 3 is version 2 here; its version 4 (the
    // attempts' uniqueness) is in version 1 here. Nothing to do.
    `-- In step with SQLite's version 3: nothing to do here.`,
    `-- In step with SQLite's version 4 (UNIQUE (delivery_id, attempt_number)): in version 1 here.`,
    // 5: the delivery log's retention. The business an event belongs to, for an erase by business
    // (filled from the payloads already stored); when its payload was removed; and the indexes
    // the pruning walks: deliveries that are over by their last change, events still holding
    // their payload by creation.
    `
    ALTER TABLE dispatch_events ADD COLUMN business_id text, ADD COLUMN payload_removed_at bigint;
    UPDATE dispatch_events SET business_id = payload::json->>'business_id';
    CREATE INDEX dispatch_events_business ON dispatch_events (business_id);
    CREATE INDEX dispatch_events_payload_kept ON dispatch_events (created_at) WHERE payload_removed_at IS NULL;
    CREATE INDEX dispatch_deliveries_over ON dispatch_deliveries (updated_at) WHERE status <> 'retrying';
    `,
    // 6: the dashboard's overview: its chart of deliveries by creation time and status
    // reads the index alone, instead of each delivery's row. It takes the place of the index on
    // (created_at), which served the same ranges: a delivery still has as many index entries.
    // (An index led by status would have drawn the queue's own queries, whose condition is
    // status = 'retrying', away from their partial indexes.)
    `
    DROP INDEX dispatch_deliveries_created;
    CREATE INDEX dispatch_deliveries_created_status ON dispatch_deliveries (created_at, status);
    `,
    // 7: how a registration signs (as SQLite's version 7): the scheme, the algorithm with the
    // ed25519 public key, and a rotation's grace. Existing registrations keep the platform's
    // scheme with HMAC.
    `
    ALTER TABLE dispatch_webhooks
      ADD COLUMN scheme text NOT NULL DEFAULT 'svc' CHECK (scheme IN ('svc', 'standard-webhooks', 'both')),
      ADD COLUMN algorithm text NOT NULL DEFAULT 'hmac-sha256' CHECK (algorithm IN ('hmac-sha256', 'ed25519')),
      ADD COLUMN public_key text,
      ADD COLUMN previous_secret text,
      ADD COLUMN previous_secret_expires_at bigint;
    `,
    // 8: the events feed (as SQLite's version 8). Each event's position, the events kept so far
    // numbered in the order they were created, new ones from the identity; and the index the
    // feed reads per business.
    `
    ALTER TABLE dispatch_events ADD COLUMN seq bigint;
    UPDATE dispatch_events e SET seq = n.seq FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS seq FROM dispatch_events) n WHERE n.id = e.id;
    ALTER TABLE dispatch_events ALTER COLUMN seq SET NOT NULL, ALTER COLUMN seq ADD GENERATED BY DEFAULT AS IDENTITY;
    SELECT setval(pg_get_serial_sequence('dispatch_events', 'seq'), COALESCE((SELECT max(seq) FROM dispatch_events), 0) + 1, false);
    CREATE INDEX dispatch_events_feed ON dispatch_events (business_id, seq);
    `,
    // 9: a registration belongs to a business (as SQLite's version 9); existing ones become scope
    // 'all' (every business's events, as before).
    `
    ALTER TABLE dispatch_webhooks
      ADD COLUMN business_id text,
      ADD COLUMN scope text NOT NULL DEFAULT 'all' CHECK (scope IN ('business', 'platform', 'all'));
    CREATE INDEX dispatch_webhooks_business ON dispatch_webhooks (business_id, seq) WHERE deleted_at IS NULL;
    CREATE INDEX dispatch_webhooks_unowned ON dispatch_webhooks (seq) WHERE deleted_at IS NULL AND business_id IS NULL;
    `,
    // 10: replay by time range (as SQLite's version 10). A delivery queued by webhooks.replay() is
    // marked \`replay\`; UNIQUE (event_id, webhook_id) holds for the others only, and one pending
    // replay delivery per event and registration at most: the index a concurrent replay's
    // ON CONFLICT meets.
    `
    ALTER TABLE dispatch_deliveries ADD COLUMN replay boolean NOT NULL DEFAULT false;
    CREATE UNIQUE INDEX dispatch_deliveries_first ON dispatch_deliveries (event_id, webhook_id) WHERE NOT replay;
    ALTER TABLE dispatch_deliveries DROP CONSTRAINT dispatch_deliveries_event_id_webhook_id_key;
    CREATE UNIQUE INDEX dispatch_deliveries_replay_pending ON dispatch_deliveries (webhook_id, event_id) WHERE replay AND status = 'retrying';
    `,
  ],
};
