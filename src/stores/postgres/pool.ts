import type { Pool, PoolConfig } from 'pg';
import { requireOptionalPackage } from '../../kernel/optional-package.js';
import { POSTGRES_CONNECT_TIMEOUT_MS, POSTGRES_POOL_SIZE, POSTGRES_PROTOCOLS } from './postgres-defaults.js';

/*
 * The part of pg's API this package uses, written out so that the published declarations do not
 * need @types/pg: a `pg.Pool` fits these interfaces as it is.
 */

export interface PostgresQueryResult {
  rows: unknown[];
  rowCount: number | null;
}

/** A statement with its parameters; a `name` makes the server prepare it once per connection. */
export interface PostgresQueryConfig {
  text: string;
  values?: unknown[];
  name?: string;
}

export interface PostgresQueryable {
  query(text: string, values?: unknown[]): Promise<PostgresQueryResult>;
  query(config: PostgresQueryConfig): Promise<PostgresQueryResult>;
}

/** A connection checked out of a pool (`pg.PoolClient`). */
export interface PostgresPoolClient extends PostgresQueryable {
  /** `true` or an error destroys the connection instead of returning it to the pool. */
  release(destroy?: boolean | Error): void;
}

/** A connection pool (`pg.Pool`). */
export interface PostgresPool extends PostgresQueryable {
  connect(): Promise<PostgresPoolClient>;
  end(): Promise<void>;
}

/** How to reach PostgreSQL when a URL, not a pool, is given. */
export interface PostgresConnectionOptions {
  /** The schema that holds the tables; created when missing. @default 'public' */
  schema?: string;
  /** Connections at most; only with a URL (a pool you pass keeps its own size). @default 10 (POSTGRES_POOL_SIZE) */
  poolSize?: number;
  /** How long an operation waits for a connection before it fails; only with a URL. @default 5_000 (POSTGRES_CONNECT_TIMEOUT_MS) */
  connectTimeoutMs?: number;
  /**
   * Named server-side prepared statements for the frequent statements (planned once per
   * connection, not on every call). Turn off behind a pooler that cannot keep them, such as
   * PgBouncer before 1.21 in transaction mode. @default true (POSTGRES_PREPARED_STATEMENTS)
   */
  preparedStatements?: boolean;
}

/** The connection options after they were checked (an option not given may be `undefined`). */
export type CheckedConnectionOptions = { [K in keyof PostgresConnectionOptions]?: PostgresConnectionOptions[K] | undefined };

export interface OpenedPool {
  pool: PostgresPool;
  /** Opened from a URL here, so `close()` ends it; a pool that was passed in stays open. */
  owned: boolean;
}

/** The npm package of the PostgreSQL driver: an optional peer dependency. */
export const POSTGRES_DRIVER_PACKAGE = 'pg';

/** The part of pg's module this package calls. */
interface PostgresDriver {
  Pool: new (config: PoolConfig) => Pool;
}

/**
 * A pool from a `postgres://` URL (owned), or the given pool (not owned). The options were
 * checked when the store was built (see options.ts); nothing connects yet. pg is loaded here,
 * for a URL only: a pool passed in brings its own.
 * @throws ConfigurationError when a URL is given and pg is not installed
 */
export function openPool(poolOrUrl: PostgresPool | string, options: CheckedConnectionOptions): OpenedPool {
  if (typeof poolOrUrl !== 'string') return { pool: poolOrUrl, owned: false };
  const pg = requireOptionalPackage<PostgresDriver>(POSTGRES_DRIVER_PACKAGE, { option: 'poolOrUrl', feature: 'PostgreSQL storage' });
  const pool = new pg.Pool({
    connectionString: poolOrUrl,
    max: options.poolSize ?? POSTGRES_POOL_SIZE,
    connectionTimeoutMillis: options.connectTimeoutMs ?? POSTGRES_CONNECT_TIMEOUT_MS,
  });
  // An idle connection the server drops (restart, failover) is an 'error' event on the pool;
  // without a listener Node ends the process. The pool discards that connection and the next
  // operation opens a new one, so there is nothing else to do here.
  pool.on('error', () => undefined);
  return { pool, owned: true };
}

/**
 * A PostgreSQL URL with its password (also a `?password=` parameter) replaced, for messages and
 * logs. Anything else is not shown at all: in `user:pw@host` the parser sees a scheme `user:`
 * and a path `pw@host`, so there is no telling where a password would be.
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!POSTGRES_PROTOCOLS.has(parsed.protocol)) return '(not a PostgreSQL URL)';
    if (parsed.password) parsed.password = '***';
    if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
    return parsed.toString();
  } catch {
    return '(not a PostgreSQL URL)';
  }
}
