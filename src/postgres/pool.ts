import pg from 'pg';
import { ConfigurationError } from '../errors.js';
import { POSTGRES_CONNECT_TIMEOUT_MS, POSTGRES_POOL_SIZE } from './defaults.js';

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

export interface OpenedPool {
  pool: PostgresPool;
  /** Opened from a URL here, so `close()` ends it; a pool that was passed in stays open. */
  owned: boolean;
}

const PROTOCOLS = new Set(['postgres:', 'postgresql:']);
const URL_EXAMPLE = 'postgres://user:password@host:5432/database';

/**
 * A pool from a `postgres://` URL (owned), or the given pool (not owned). Everything is checked
 * here, when the store or storage is built; nothing connects yet.
 * @throws ConfigurationError for anything else, with the password never in the message
 */
export function openPool(poolOrUrl: PostgresPool | string, options: PostgresConnectionOptions): OpenedPool {
  if (typeof poolOrUrl === 'string') return { pool: poolFromUrl(poolOrUrl, options), owned: true };
  if (!isPool(poolOrUrl)) {
    throw new ConfigurationError({ option: 'poolOrUrl', reason: `must be a PostgreSQL URL or a pg.Pool, not ${describe(poolOrUrl)}` }, `Expected a PostgreSQL URL (${URL_EXAMPLE}) or a pg.Pool`);
  }
  for (const option of ['poolSize', 'connectTimeoutMs'] as const) {
    if (options[option] !== undefined) {
      throw new ConfigurationError({ option, reason: 'applies only when a URL is given' }, `${option} applies only when a URL is given; configure the pool you pass instead`);
    }
  }
  return { pool: poolOrUrl, owned: false };
}

/**
 * A PostgreSQL URL with its password (also a `?password=` parameter) replaced, for messages and
 * logs. Anything else is not shown at all: in `user:pw@host` the parser sees a scheme `user:`
 * and a path `pw@host`, so there is no telling where a password would be.
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!PROTOCOLS.has(parsed.protocol)) return '(not a PostgreSQL URL)';
    if (parsed.password) parsed.password = '***';
    if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
    return parsed.toString();
  } catch {
    return '(not a PostgreSQL URL)';
  }
}

function poolFromUrl(url: string, options: PostgresConnectionOptions): PostgresPool {
  checkUrl(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: positiveInteger('poolSize', options.poolSize ?? POSTGRES_POOL_SIZE),
    connectionTimeoutMillis: positiveInteger('connectTimeoutMs', options.connectTimeoutMs ?? POSTGRES_CONNECT_TIMEOUT_MS),
  });
  // An idle connection the server drops (restart, failover) is an 'error' event on the pool;
  // without a listener Node ends the process. The pool discards that connection and the next
  // operation opens a new one, so there is nothing else to do here.
  pool.on('error', () => undefined);
  return pool;
}

function checkUrl(url: string): void {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    // The text is not repeated: it may hold a password.
    throw new ConfigurationError({ option: 'poolOrUrl', reason: 'cannot be parsed as a URL' }, `The PostgreSQL URL cannot be parsed; expected ${URL_EXAMPLE}`);
  }
  if (!PROTOCOLS.has(protocol)) {
    throw new ConfigurationError({ option: 'poolOrUrl', reason: 'must start with postgres:// or postgresql://' }, `A PostgreSQL URL starts with postgres:// or postgresql://; expected ${URL_EXAMPLE}`);
  }
}

function isPool(value: unknown): value is PostgresPool {
  const candidate = (typeof value === 'object' && value !== null ? value : {}) as Partial<Record<keyof PostgresPool, unknown>>;
  return typeof candidate.query === 'function' && typeof candidate.connect === 'function' && typeof candidate.end === 'function';
}

function positiveInteger(option: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new ConfigurationError({ option, reason: `must be a positive integer, not ${String(value)}` });
  }
  return value;
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}
