import { sqliteStore, type IdempotencyStore } from 'acct-webhook';

/** The SQLite file used when WEBHOOK_DB is not set; created on first start. */
export const DEFAULT_DATABASE_FILE = './webhook-events.db';

/**
 * The idempotency store: remembers the id of every handled event (30 days), so a delivery the
 * platform repeats is answered `200 {"duplicate": true}` without running the handlers again.
 * One SQLite file; several processes on one machine may share it. Keep it on a persistent
 * volume: a store that forgets lets repeated deliveries through.
 */
export function openStore(env: NodeJS.ProcessEnv): IdempotencyStore {
  return sqliteStore(env.WEBHOOK_DB || DEFAULT_DATABASE_FILE);
}
