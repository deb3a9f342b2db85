import { ConfigurationError } from '../kernel/errors.js';

/**
 * One part of the schema (the idempotency store, the dispatch store) and its migrations, oldest
 * first: version n is `migrations[n - 1]`. Append only — a released migration is never edited; a
 * change is a new one.
 */
export interface MigrationSet {
  component: 'idempotency' | 'dispatch';
  migrations: readonly string[];
}

/** The table that records which migrations of which component a database has; the same on every backend. */
export const MIGRATIONS_TABLE = 'acct_webhook_migrations';

/**
 * The migrations still to apply to a database at version `current`, with their version numbers.
 * @param option the option that names the database in a configuration error (`database`, `schema`)
 * @throws ConfigurationError when a newer version of this package migrated the database
 */
export function pendingMigrations(set: MigrationSet, current: number, option: string): { version: number; sql: string }[] {
  const latest = set.migrations.length;
  if (current > latest) {
    const reason = `has ${set.component} migrations up to version ${current}; this version of acct-webhook knows up to ${latest}`;
    throw new ConfigurationError({ option, reason }, `The database ${reason}. Upgrade acct-webhook.`);
  }
  return set.migrations.slice(current).map((sql, index) => ({ version: current + index + 1, sql }));
}
