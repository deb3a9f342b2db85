import { offerEventRecords } from '../../ports/event-records.js';
import { offerReceivedReads } from '../../ports/received-reads.js';
import { sqliteReceivedReads } from './received-reads.js';
import { sqliteEventRecords } from './event-records.js';
import { randomUUID } from 'node:crypto';
import { checkArgument, checkOptions, strictObject } from '../../kernel/options-check.js';
import { retentionShape } from '../../ports/store-options.js';
import {
  DEFAULT_RETENTION_MS,
  PRUNE_INTERVAL_MS,
  type ClaimOptions,
  type ClaimResult,
  type IdempotencyStore,
  type StoreOptions,
} from '../../ports/idempotency-store.js';
import { asPromise } from './as-promise.js';
import { backgroundCheckpoints } from './checkpoint.js';
import { openConnection, sqliteConnectionShape, sqliteTarget, type SqliteConnectionOptions } from './open-connection.js';
import type { AtomicEffect, SqliteDatabase } from '../../ports/sqlite-database.js';
import { GroupCommit } from './group-commit.js';
import { migrate } from './migrations.js';
import { sqliteInbox } from './inbox.js';
import { sqliteQuarantine } from './quarantine.js';
import { STORE_MIGRATIONS } from './store-migrations.js';
import { sqliteVersions } from './versions.js';
import { sqliteCatchUp } from './catch-up.js';
import type { CompleteOptions } from '../../ports/versions.js';

export { DEFAULT_STORE_FILE } from './store-file.js';

/** The options of {@link sqliteStore}: retention, durability, lock waiting. */
export interface SqliteStoreOptions extends StoreOptions, SqliteConnectionOptions {}

const sqliteStoreOptions = strictObject({ ...retentionShape, ...sqliteConnectionShape });

/**
 * The default idempotency store: one SQLite file (WAL), safe for several processes on one
 * machine sharing it. Completed records are kept for `retentionMs` (30 days by default, never
 * less than 35 h) and pruned as claims come in. better-sqlite3 is loaded here, on first use.
 *
 * With `synchronous: 'NORMAL'` (the default) a power loss may lose the last commits: a
 * redelivery would then run its handler again. `'FULL'` also survives that. A write that waits
 * for another process's lock longer than `busyTimeoutMs` fails (the receiver then answers 503).
 *
 * @param database a file path (created when missing) or an open better-sqlite3 Database, which
 *   stays open on `close()` and may take atomic effects in its own tables
 * @throws ConfigurationError for a bad option, a file that cannot be opened or was migrated by a
 *   newer version, or a missing better-sqlite3 — here, never on first use
 * @example
 * app.use(webhookHandler({ secret, store: sqliteStore('./data/webhook-events.db') }));
 */
export function sqliteStore(database: string | SqliteDatabase, options: SqliteStoreOptions = {}): IdempotencyStore {
  checkArgument(sqliteTarget, 'database', database, 'sqliteStore');
  const valid = checkOptions(sqliteStoreOptions, options, 'sqliteStore');
  const retentionMs = valid.retentionMs ?? DEFAULT_RETENTION_MS;
  const { db, owned, driver } = openConnection(database, valid);
  migrate(db, STORE_MIGRATIONS);

  const statements = {
    // The common case, a first delivery, is a plain insert; only a conflict needs more.
    insert: db.prepare<[string, string, number, string | null, number]>(
      `INSERT OR IGNORE INTO acct_webhook_events (event_id, state, token, lease_until, event_type, first_seen_at)
       VALUES (?, 'processing', ?, ?, ?, ?)`,
    ),
    takeOver: db.prepare<[string, number, string, number]>(
      `UPDATE acct_webhook_events SET token = ?, lease_until = ?, claims = claims + 1
       WHERE event_id = ? AND state = 'processing' AND lease_until <= ?`,
    ),
    state: db.prepare<[string], { state: string; lease_until: number; completed_at: number | null }>(
      'SELECT state, lease_until, completed_at FROM acct_webhook_events WHERE event_id = ?',
    ),
    complete: db.prepare<[number, string, string]>(
      `UPDATE acct_webhook_events SET state = 'completed', completed_at = ?, lease_until = 0
       WHERE event_id = ? AND token = ? AND state = 'processing'`,
    ),
    release: db.prepare<[string, string]>(
      `UPDATE acct_webhook_events SET lease_until = 0 WHERE event_id = ? AND token = ? AND state = 'processing'`,
    ),
    prune: db.prepare<[number]>("DELETE FROM acct_webhook_events WHERE state = 'completed' AND completed_at <= ?"),
    // Finished inbox events are kept as long as the records; dead ones until purged or retried.
    // Read by arrival along the status index (an event completes after it arrives; migration 5
    // dropped the index on completed_at that only this read used).
    pruneInbox: db.prepare<{ before: number }>("DELETE FROM acct_webhook_inbox WHERE status = 'done' AND received_at <= @before AND completed_at <= @before"),
  };
  let lastPrune = 0;
  // Checkpoints off the request path, on a file this store opened (an application's own
  // connection keeps SQLite's automatic checkpoints).
  const checkpoints = owned ? backgroundCheckpoints(db, driver) : undefined;
  const writes = new GroupCommit(db, checkpoints?.afterCommit);
  const versions = sqliteVersions(db);
  const inbox = sqliteInbox(db, writes, versions);

  function pruneAll(now: number): number {
    const before = now - retentionMs;
    versions.prune(before);
    statements.pruneInbox.run({ before });
    return statements.prune.run(before).changes;
  }

  function complete(eventId: string, token: string, now: number, options: CompleteOptions | undefined): boolean {
    if (statements.complete.run(now, eventId, token).changes !== 1) return false;
    if (options?.version) versions.record(options.version, now);
    return true;
  }

  function claim(eventId: string, { now, leaseMs, type }: ClaimOptions): ClaimResult {
    if (now - lastPrune >= PRUNE_INTERVAL_MS) {
      lastPrune = now;
      pruneAll(now);
    }
    const token = randomUUID();
    const leaseUntil = now + leaseMs;
    if (statements.insert.run(eventId, token, leaseUntil, type ?? null, now).changes === 1) {
      return { status: 'claimed', token, takeover: false };
    }
    if (statements.takeOver.run(token, leaseUntil, eventId, now).changes === 1) return { status: 'claimed', token, takeover: true };
    const row = statements.state.get(eventId);
    if (row?.state === 'completed') return { status: 'completed', completedAt: row.completed_at ?? 0 };
    return { status: 'in_progress', leaseExpiresAt: row?.lease_until ?? now };
  }

  const store = offerEventRecords<IdempotencyStore>({
    retentionMs,
    // Opened and migrated above, when the factory ran.
    ready: () => Promise.resolve(),
    quarantine: sqliteQuarantine(db),
    versions,
    inbox,
    catchUp: sqliteCatchUp(db, writes),
    claim: (eventId, claimOptions) => writes.write(() => claim(eventId, claimOptions)),
    complete: (eventId, token, now, options) =>
      writes.write(() => complete(eventId, token, now, options), options?.version ? { savepoint: true } : {}),
    completeAtomically: (eventId, token, now, effects, options) =>
      writes.write(
        () => {
          if (!complete(eventId, token, now, options)) return false;
          for (const effect of effects) {
            const result: unknown = (effect as AtomicEffect)(db);
            if (result instanceof Promise) throw new TypeError('An atomic effect must be synchronous: SQLite transactions cannot await');
          }
          return true;
        },
        { savepoint: true },
      ),
    release: (eventId, token) => writes.write(() => statements.release.run(eventId, token).changes === 1),
    prune: (now) => writes.write(() => pruneAll(now)),
    close: async () => {
      await checkpoints?.close();
      await asPromise(() => void (owned && db.open && db.close()));
    },
  }, sqliteEventRecords(db));
  return offerReceivedReads(store, sqliteReceivedReads(db));
}
