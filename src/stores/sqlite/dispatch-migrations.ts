import type { MigrationSet } from '../../ports/migrations.js';

/*
 * The dispatch store's tables, prefixed `dispatch_` because one file may also hold the receiver's
 * store and an application's own tables. 0.x kept its version in `dispatch_schema_migrations`;
 * version 1 below is that layout and creates only what is missing, so a 0.x file is adopted with
 * its records.
 */
export const DISPATCH_MIGRATIONS: MigrationSet = {
  component: 'dispatch',
  migrations: [
    `
    CREATE TABLE IF NOT EXISTS dispatch_webhooks (
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

    CREATE TABLE IF NOT EXISTS dispatch_events (
      id TEXT PRIMARY KEY,
      type TEXT NOT NULL,
      payload TEXT NOT NULL,
      correlation_id TEXT NOT NULL,
      test INTEGER NOT NULL,
      created_at INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE IF NOT EXISTS dispatch_deliveries (
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

    CREATE INDEX IF NOT EXISTS dispatch_deliveries_due ON dispatch_deliveries (status, next_attempt_at);
    CREATE INDEX IF NOT EXISTS dispatch_deliveries_webhook ON dispatch_deliveries (webhook_id, seq);
    CREATE INDEX IF NOT EXISTS dispatch_deliveries_created ON dispatch_deliveries (created_at);

    CREATE TABLE IF NOT EXISTS dispatch_attempts (
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

    CREATE INDEX IF NOT EXISTS dispatch_attempts_delivery ON dispatch_attempts (delivery_id, seq);
    CREATE INDEX IF NOT EXISTS dispatch_attempts_time ON dispatch_attempts (attempted_at);
    `,
    // The webhook's status, copied to its deliveries (kept in step by updateWebhook), as on
    // PostgreSQL: the queue is then one partial index of what a claim can take, earliest first, and
    // a disabled webhook's deliveries are neither claimed nor reported as due. The last two
    // statements make a 0.x build, which reads only dispatch_schema_migrations, refuse this file
    // with a configuration error instead of writing to a layout it does not know.
    `
    ALTER TABLE dispatch_deliveries ADD COLUMN webhook_active INTEGER NOT NULL DEFAULT 1 CHECK (webhook_active IN (0, 1));
    UPDATE dispatch_deliveries SET webhook_active = 0
      WHERE status = 'retrying' AND webhook_id IN (SELECT id FROM dispatch_webhooks WHERE status <> 'active');
    DROP INDEX dispatch_deliveries_due;
    CREATE INDEX dispatch_deliveries_due ON dispatch_deliveries (next_attempt_at) WHERE status = 'retrying' AND webhook_active = 1;

    CREATE TABLE IF NOT EXISTS dispatch_schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL) STRICT;
    INSERT OR IGNORE INTO dispatch_schema_migrations (version, applied_at) VALUES (2, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
    `,
    // Isolation and failing endpoints: each registration's health (the current streak of failed
    // attempts, when and why it was disabled) and its optional rate limit with the limit's state;
    // the queue per registration (a claim takes each one's earliest due deliveries) and the leased
    // deliveries (attempts in flight, counted per registration against the cap); events recorded as
    // not sent while a registration was disabled, for a replay.
    `
    ALTER TABLE dispatch_webhooks ADD COLUMN failure_streak INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE dispatch_webhooks ADD COLUMN failing_since INTEGER;
    ALTER TABLE dispatch_webhooks ADD COLUMN last_failure_at INTEGER;
    ALTER TABLE dispatch_webhooks ADD COLUMN disabled_at INTEGER;
    ALTER TABLE dispatch_webhooks ADD COLUMN disabled_reason TEXT CHECK (disabled_reason IN ('manual', 'failing'));
    ALTER TABLE dispatch_webhooks ADD COLUMN rate_limit REAL;
    ALTER TABLE dispatch_webhooks ADD COLUMN rate_tat REAL;
    ALTER TABLE dispatch_webhooks ADD COLUMN delivered_streak INTEGER NOT NULL DEFAULT 0;
    UPDATE dispatch_webhooks SET disabled_at = updated_at, disabled_reason = 'manual' WHERE status = 'disabled';

    CREATE INDEX dispatch_deliveries_queue ON dispatch_deliveries (webhook_id, next_attempt_at) WHERE status = 'retrying' AND webhook_active = 1;
    CREATE INDEX dispatch_deliveries_leased ON dispatch_deliveries (webhook_id, lease_until) WHERE lease_owner IS NOT NULL;
    CREATE INDEX dispatch_deliveries_pending ON dispatch_deliveries (next_attempt_at) WHERE status = 'retrying';

    CREATE TABLE dispatch_skipped (
      webhook_id TEXT NOT NULL REFERENCES dispatch_webhooks (id),
      event_id TEXT NOT NULL REFERENCES dispatch_events (id),
      skipped_at INTEGER NOT NULL,
      PRIMARY KEY (webhook_id, event_id)
    ) STRICT, WITHOUT ROWID;
    `,
    // 4: an attempt's number is unique per delivery, as on PostgreSQL (its version 1): the
    // dispatcher numbers attempts under the delivery's lock, and a number used twice would be a
    // bug, refused here. From this version on, version n is the same schema on both backends.
    `
    CREATE UNIQUE INDEX dispatch_attempts_number ON dispatch_attempts (delivery_id, attempt_number);
    `,
    // 5: the delivery log's retention, as on PostgreSQL (its version 5): the business an event
    // belongs to (filled from the stored payloads), when its payload was removed, and the indexes
    // the pruning walks.
    `
    ALTER TABLE dispatch_events ADD COLUMN business_id TEXT;
    ALTER TABLE dispatch_events ADD COLUMN payload_removed_at INTEGER;
    UPDATE dispatch_events SET business_id = json_extract(payload, '$.business_id');
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
    // 7: how a registration signs: the scheme (the platform's headers, Standard Webhooks, or
    // both), the algorithm (HMAC, or an ed25519 key pair whose public key is shown), and a
    // rotation's grace (the replaced secret signs beside the new one until then). Existing
    // registrations keep the platform's scheme with HMAC, as before.
    `
    ALTER TABLE dispatch_webhooks ADD COLUMN scheme TEXT NOT NULL DEFAULT 'svc' CHECK (scheme IN ('svc', 'standard-webhooks', 'both'));
    ALTER TABLE dispatch_webhooks ADD COLUMN algorithm TEXT NOT NULL DEFAULT 'hmac-sha256' CHECK (algorithm IN ('hmac-sha256', 'ed25519'));
    ALTER TABLE dispatch_webhooks ADD COLUMN public_key TEXT;
    ALTER TABLE dispatch_webhooks ADD COLUMN previous_secret TEXT;
    ALTER TABLE dispatch_webhooks ADD COLUMN previous_secret_expires_at INTEGER;
    `,
    // 8: the events feed. Each event's position, in the order the events were recorded (the
    // events kept so far in the order of their rows), and the index the feed reads per business.
    `
    ALTER TABLE dispatch_events ADD COLUMN seq INTEGER;
    UPDATE dispatch_events SET seq = rowid;
    CREATE UNIQUE INDEX dispatch_events_seq ON dispatch_events (seq);
    CREATE INDEX dispatch_events_feed ON dispatch_events (business_id, seq);
    `,
    // 9: a registration belongs to a business (or receives every business's events, `platform`).
    // Existing registrations had no owner and received every event: they become scope 'all',
    // which still does. Emit finds its targets by the business's index (and the few without one).
    `
    ALTER TABLE dispatch_webhooks ADD COLUMN business_id TEXT;
    ALTER TABLE dispatch_webhooks ADD COLUMN scope TEXT NOT NULL DEFAULT 'all' CHECK (scope IN ('business', 'platform', 'all'));
    CREATE INDEX dispatch_webhooks_business ON dispatch_webhooks (business_id) WHERE deleted_at IS NULL;
    CREATE INDEX dispatch_webhooks_unowned ON dispatch_webhooks (scope) WHERE deleted_at IS NULL AND business_id IS NULL;
    `,
    // 10: replay by time range. A delivery queued by webhooks.replay() is marked \`replay\`; an event
    // may then have more than one delivery to one registration, so UNIQUE (event_id, webhook_id)
    // holds for the deliveries emit and the skipped-events replay make (replay = 0) only, and a
    // second unique index allows one pending replay delivery per event and registration (what
    // makes a replay idempotent across processes). SQLite cannot drop a table's UNIQUE
    // constraint: the table is rebuilt (the migration runner turns foreign keys off around it and
    // checks them before committing), its rows and their seq kept, its indexes made again.
    `
    CREATE TABLE dispatch_deliveries_v10 (
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
      webhook_active INTEGER NOT NULL DEFAULT 1 CHECK (webhook_active IN (0, 1)),
      replay INTEGER NOT NULL DEFAULT 0 CHECK (replay IN (0, 1))
    ) STRICT;
    INSERT INTO dispatch_deliveries_v10 (seq, id, event_id, webhook_id, event_type, correlation_id, status, attempt_count,
        automatic_attempt_count, next_attempt_at, lease_owner, lease_until, test, created_at, updated_at, webhook_active)
      SELECT seq, id, event_id, webhook_id, event_type, correlation_id, status, attempt_count,
        automatic_attempt_count, next_attempt_at, lease_owner, lease_until, test, created_at, updated_at, webhook_active
      FROM dispatch_deliveries;
    DROP TABLE dispatch_deliveries;
    ALTER TABLE dispatch_deliveries_v10 RENAME TO dispatch_deliveries;

    CREATE UNIQUE INDEX dispatch_deliveries_first ON dispatch_deliveries (event_id, webhook_id) WHERE replay = 0;
    CREATE UNIQUE INDEX dispatch_deliveries_replay_pending ON dispatch_deliveries (webhook_id, event_id) WHERE replay = 1 AND status = 'retrying';
    CREATE INDEX dispatch_deliveries_webhook ON dispatch_deliveries (webhook_id, seq);
    CREATE INDEX dispatch_deliveries_due ON dispatch_deliveries (next_attempt_at) WHERE status = 'retrying' AND webhook_active = 1;
    CREATE INDEX dispatch_deliveries_queue ON dispatch_deliveries (webhook_id, next_attempt_at) WHERE status = 'retrying' AND webhook_active = 1;
    CREATE INDEX dispatch_deliveries_leased ON dispatch_deliveries (webhook_id, lease_until) WHERE lease_owner IS NOT NULL;
    CREATE INDEX dispatch_deliveries_pending ON dispatch_deliveries (next_attempt_at) WHERE status = 'retrying';
    CREATE INDEX dispatch_deliveries_over ON dispatch_deliveries (updated_at) WHERE status <> 'retrying';
    CREATE INDEX dispatch_deliveries_created_status ON dispatch_deliveries (created_at, status);
    `,
  ],
};
