import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe } from 'vitest';
import { redactUrl } from '../../src/postgres/pool.js';

/*
 * The PostgreSQL tests run against a real server: ACCT_WEBHOOK_PG_URL, by default the machine's
 * (`.ci/run` starts it when it is down). Each test file works in schemas of its own with random
 * names and drops them at the end. Without a reachable server the PostgreSQL suites are skipped
 * and the reason is printed — unless CI is set: then the file fails, so a broken server cannot
 * pass for a green run.
 */

export const POSTGRES_URL = process.env.ACCT_WEBHOOK_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** How long the reachability check may take. */
const PROBE_TIMEOUT_MS = 3_000;

export interface PostgresAvailability {
  available: boolean;
  /** Why not, when not. */
  reason: string;
}

async function probe(): Promise<PostgresAvailability> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return { available: true, reason: '' };
  } catch (error) {
    return { available: false, reason: `PostgreSQL at ${redactUrl(POSTGRES_URL)} is not reachable (${(error as Error).message})` };
  } finally {
    await client.end().catch(() => undefined);
  }
}

const inCi = (process.env.CI ?? '') !== '' && process.env.CI !== 'false' && process.env.CI !== '0';

export const postgres: PostgresAvailability = await probe();

if (!postgres.available) {
  if (inCi) throw new Error(`CI is set, so the PostgreSQL tests must run: ${postgres.reason}. Start it or set ACCT_WEBHOOK_PG_URL.`);
  console.warn(`Skipping the PostgreSQL tests: ${postgres.reason}. Set ACCT_WEBHOOK_PG_URL to run them.`);
}

/** A describe that runs only with a reachable server (the reason was printed above otherwise). */
export function describePostgres(name: string, body: () => void): void {
  describe.skipIf(!postgres.available)(name, body);
}

/** A fresh schema name no other run uses. */
export function randomSchemaName(): string {
  return `acct_test_${randomBytes(6).toString('hex')}`;
}

/** One pool for a test file, and every schema it hands out, dropped after the file's tests. */
export class TestDatabase {
  readonly url = POSTGRES_URL;
  readonly pool: pg.Pool;
  private readonly schemas = new Set<string>();

  constructor({ poolSize = 8 }: { poolSize?: number } = {}) {
    this.pool = new pg.Pool({ connectionString: POSTGRES_URL, max: poolSize });
    this.pool.on('error', () => undefined);
  }

  /** A schema name for one store or storage; the schema itself is created by the migrations. */
  newSchema(): string {
    const name = randomSchemaName();
    this.schemas.add(name);
    return name;
  }

  /** Drops `name` with the others at the end (for a name a test made up itself). */
  adopt(name: string): void {
    this.schemas.add(name);
  }

  /** Drops every schema handed out, then ends the pool. */
  async dispose(): Promise<void> {
    for (const name of this.schemas) await this.pool.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    this.schemas.clear();
    await this.pool.end();
  }
}

/** A TestDatabase disposed of after the current file's (or describe's) tests. */
export function useTestDatabase(options: { poolSize?: number } = {}): TestDatabase {
  const database = new TestDatabase(options);
  afterAll(() => database.dispose());
  return database;
}
