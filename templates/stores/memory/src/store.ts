import { memoryStore, type IdempotencyStore } from 'acct-webhook';

/**
 * The idempotency store: remembers the id of every handled event, so a delivery the platform
 * repeats is answered `200 {"duplicate": true}` without running the handlers again.
 *
 * This one keeps them in memory: a restart forgets them, and a second process does not see
 * them. Fine for development; for production switch to `sqliteStore('./webhook-events.db')`
 * (one machine) or `postgresStore(url)` from `acct-webhook/postgres` (several).
 */
export function openStore(_env: NodeJS.ProcessEnv): IdempotencyStore {
  return memoryStore();
}
