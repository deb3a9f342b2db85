import { MIGRATIONS_TABLE, pendingMigrations, type MigrationSet } from '../../ports/migrations.js';
import type { PostgresPool, PostgresPoolClient } from './pool.js';
import { withTransaction } from './transaction.js';

/** Every process of every component takes this lock (with the schema's hash) before migrating. */
const MIGRATION_LOCK_NAMESPACE = 0x61637774; // 'acwt'

/**
 * Brings `set` up to its latest version in `schema` (its SQL runs with `search_path` set to the
 * schema, so table names are unqualified), in one transaction under a transaction-level
 * advisory lock: when several processes start at once, the first applies each migration and the
 * others, once the lock is theirs, find nothing left to do. Returns how many were applied here.
 * @throws ConfigurationError when the schema was migrated by a newer version of this package
 */
export function migrate(pool: PostgresPool, schema: { name: string; quoted: string }, set: MigrationSet): Promise<number> {
  return withTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK_NAMESPACE, schema.name]);
    await ensureSchema(client, schema);
    await client.query(`SET LOCAL search_path TO ${schema.quoted}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
      component  text NOT NULL,
      version    integer NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (component, version)
    )`);
    const pending = pendingMigrations(set, await currentVersion(client, set.component), 'schema');
    for (const { version, sql } of pending) {
      await client.query(sql);
      await client.query(`INSERT INTO ${MIGRATIONS_TABLE} (component, version) VALUES ($1, $2)`, [set.component, version]);
    }
    return pending.length;
  });
}

/** Checked before creating: CREATE SCHEMA needs a privilege that using an existing schema does not. */
async function ensureSchema(client: PostgresPoolClient, schema: { name: string; quoted: string }): Promise<void> {
  const found = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema.name]);
  if (found.rows.length === 0) await client.query(`CREATE SCHEMA ${schema.quoted}`);
}

async function currentVersion(client: PostgresPoolClient, component: string): Promise<number> {
  const result = await client.query(`SELECT COALESCE(MAX(version), 0) AS version FROM ${MIGRATIONS_TABLE} WHERE component = $1`, [component]);
  const [row] = result.rows as { version: number }[];
  return row?.version ?? 0;
}
