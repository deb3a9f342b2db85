import { offerEventRecords } from '../../ports/event-records.js';
import { offerReceivedReads } from '../../ports/received-reads.js';
import { postgresReceivedReads } from './received-reads.js';
import { postgresEventRecords } from './event-records.js';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { parseOptions } from '../../kernel/configuration.js';
import { onceSucceeded } from '../../kernel/once.js';
import { parseArgument } from '../../kernel/parse-argument.js';
import { RETENTION_RULE } from '../../ports/store-options.js';
import {
  DEFAULT_RETENTION_MS,
  MIN_RETENTION_MS,
  PRUNE_INTERVAL_MS,
  type ClaimOptions,
  type ClaimResult,
  type IdempotencyStore,
  type StoreOptions,
} from '../../ports/idempotency-store.js';
import { completeWithEffects } from './atomic.js';
import { wakeUpChannel } from './wake-ups.js';
import { eventBatches } from './event-batches.js';
import { int8 } from './int8.js';
import { migrate } from './migrations.js';
import { connectionShape, postgresTarget, schemaName } from './options.js';
import { openPool, type PostgresConnectionOptions, type PostgresPool } from './pool.js';
import { postgresInbox } from './inbox.js';
import { postgresCatchUp } from './catch-up.js';
import { postgresQuarantine } from './quarantine.js';
import { postgresVersions, recordVersionSql, versionValues } from './versions.js';
import { run, statementPreparer, type Prepare, type Statement } from './statement.js';
import { STORE_MIGRATIONS } from './store-migrations.js';
import { encodeNullableText, encodeText } from './text-codec.js';

/** The options of {@link postgresStore}: retention, and the connection's. */
export interface PostgresStoreOptions extends StoreOptions, PostgresConnectionOptions {}

/** The stores' retention option (src/ports/store-options.ts, zod-free there) as a zod shape, for the PostgreSQL options. */
const retentionShape = {
  retentionMs: z.number({ error: RETENTION_RULE }).min(MIN_RETENTION_MS, { error: RETENTION_RULE }).max(Number.MAX_SAFE_INTEGER, { error: RETENTION_RULE }).optional(),
};

/**
 * The idempotency store on PostgreSQL, for several receiver processes or machines sharing what
 * was handled. The same contract as `sqliteStore`: a claim is one atomic upsert that takes a
 * new id or an expired/released lease and nothing else, so two deliveries of one event never
 * both run the handlers while a lease holds. Completed records are kept for `retentionMs`
 * (30 days by default, never less than 35 h) and pruned as claims come in (at most hourly, in
 * the background).
 *
 * Returns at once; the tables are created (migrated) on first use or by `ready()`.
 *
 * @param poolOrUrl a `postgres://` URL (a pool is opened, and ended by `close()`) or a `pg.Pool`
 *   (shared with your application; left open by `close()`)
 * @throws ConfigurationError for a bad URL, pool or option, here and never later (never with the password)
 * @example
 * app.use(webhookHandler({ secret, store: postgresStore(process.env.DATABASE_URL!) }));
 */
export function postgresStore(poolOrUrl: PostgresPool | string, options: PostgresStoreOptions = {}): IdempotencyStore {
  // Everything is checked before a pool is opened.
  parseArgument(postgresTarget, 'poolOrUrl', poolOrUrl, 'postgresStore');
  const valid = parseOptions(z.strictObject({ ...retentionShape, ...connectionShape(typeof poolOrUrl === 'string') }), options, 'postgresStore');
  const retentionMs = valid.retentionMs ?? DEFAULT_RETENTION_MS;
  const schema = schemaName(valid);
  const prepare = statementPreparer(valid.preparedStatements);
  const { pool, owned } = openPool(poolOrUrl, valid);
  const sql = statements(schema.quoted, prepare);
  const ready = onceSucceeded(async () => {
    await migrate(pool, schema, STORE_MIGRATIONS);
  });
  // The claims and the completions of one event-loop turn: one statement each.
  const batches = eventBatches(pool, `${schema.quoted}.acct_webhook_events`, prepare, ready);
  let lastPrune = Number.NEGATIVE_INFINITY;
  let closing: Promise<void> | null = null;

  async function write(statement: Statement, values: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }> {
    await ready();
    return run(pool, statement, values);
  }

  async function prune(now: number): Promise<number> {
    return (await write(sql.prune, [int8(now - retentionMs, 'now')])).rowCount ?? 0;
  }

  // async: a value refused by int8 is a rejection, as any other failure of a claim.
  async function claim(eventId: string, { now, leaseMs, type }: ClaimOptions): Promise<ClaimResult> {
    if (now - lastPrune >= PRUNE_INTERVAL_MS) {
      lastPrune = now;
      // In the background: an hour of records may be a large delete, and the delivery that
      // happens to trigger it must not wait for it. A failure is tried again an hour later.
      void prune(now).catch(() => undefined);
    }
    return batches.claims.submit({
      key: encodeText(eventId),
      token: randomUUID(),
      leaseUntil: int8(now + leaseMs, 'now + leaseMs'),
      type: encodeNullableText(type ?? null),
      now: int8(now, 'now'),
    });
  }

  const store = offerEventRecords<IdempotencyStore>({
    retentionMs,
    ready,
    quarantine: postgresQuarantine(pool, `${schema.quoted}.acct_webhook_quarantine`, { ready, prepare }),
    versions: postgresVersions(pool, schema.quoted, { ready, prepare }),
    inbox: postgresInbox(pool, schema.quoted, { ready, prepare, wakeUpChannel: wakeUpChannel('inbox', schema.name) }),
    catchUp: postgresCatchUp(pool, schema.quoted, { ready, prepare }),
    claim,
    async complete(eventId, token, now, options) {
      if (!options?.version) return batches.completions.submit({ key: encodeText(eventId), token, now: int8(now, 'now') });
      const values = [encodeText(eventId), token, int8(now, 'now'), ...versionValues(options.version)];
      const [row] = (await write(sql.completeWithVersion, values)).rows as { n: number }[];
      return row?.n === 1;
    },
    async completeAtomically(eventId, token, now, effects, options) {
      const values = [encodeText(eventId), token, int8(now, 'now'), ...versionValues(options?.version)];
      await ready();
      return completeWithEffects(pool, effects, options?.budgetMs, async (client) => ((await run(client, sql.completeWithVersion, values)).rows as { n: number }[])[0]?.n === 1);
    },
    release: async (eventId, token) => (await write(sql.release, [encodeText(eventId), token])).rowCount === 1,
    prune,
    close() {
      closing ??= owned ? pool.end() : Promise.resolve();
      return closing;
    },
  }, postgresEventRecords(pool, `${schema.quoted}.acct_webhook_events`, { ready, prepare }));
  return offerReceivedReads(store, postgresReceivedReads(pool, schema.quoted, { ready, prepare }));
}

function statements(schema: string, prepare: Prepare) {
  const events = `${schema}.acct_webhook_events`;
  return {
    // The token stays: a handler that finishes late may still complete, unless someone took over.
    release: prepare(`UPDATE ${events} SET lease_until = 0 WHERE event_id = $1 AND token = $2 AND state = 'processing'`),
    // With the ordering guard, the object's newest version is kept in the same statement (and
    // without a version, $4 is null and nothing is kept: the atomic completion's statement).
    completeWithVersion: prepare(`WITH done AS (
        UPDATE ${events} SET state = 'completed', completed_at = $3, lease_until = 0
        WHERE event_id = $1 AND token = $2 AND state = 'processing' RETURNING event_id),
      kept AS (${recordVersionSql(schema, ['$4', '$5', '$6', '$7'], '$3', 'EXISTS (SELECT 1 FROM done)')})
      SELECT COUNT(*)::int AS n FROM done`),
    // Done inbox events by arrival (an event completes after it arrives), along the status index.
    prune: prepare(`WITH versions AS (DELETE FROM ${schema}.acct_webhook_object_versions WHERE updated_at <= $1),
        inbox AS (DELETE FROM ${schema}.acct_webhook_inbox WHERE status = 'done' AND received_at <= $1 AND completed_at <= $1)
      DELETE FROM ${events} WHERE state = 'completed' AND completed_at <= $1`),
  };
}
