import type { IdempotencyStore } from 'acct-webhook';
import { postgresStore } from 'acct-webhook/postgres';
import { ConfigError } from './config.js';

/**
 * The idempotency store: remembers the id of every handled event (30 days), so a delivery the
 * platform repeats is answered `200 {"duplicate": true}` without running the handlers again.
 * PostgreSQL lets several machines behind a load balancer share what was handled.
 */
export function openStore(env: NodeJS.ProcessEnv): IdempotencyStore {
  const url = env.DATABASE_URL;
  if (!url) {
    throw new ConfigError('DATABASE_URL is not set: set it to the PostgreSQL connection string (postgres://user:password@host:5432/database)');
  }
  return postgresStore(url);
}
