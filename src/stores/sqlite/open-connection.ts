import { custom, numberIn, oneOf, optional } from '../../kernel/options-check.js';
import { ConfigurationError } from '../../kernel/errors.js';
import type { SqliteDatabase } from '../../ports/sqlite-database.js';
import { givenConnection, openSqliteFile, SQLITE_DRIVERS, type SqliteConnection, type SqliteDriver } from './drivers.js';
import { MAX_TIMER_MS } from '../../kernel/timers.js';

/** How long a write waits for another process's lock before failing; one value for every SQLite store. */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;
/** Survives a crash of the process; see {@link SqliteConnectionOptions.synchronous}. */
export const SQLITE_DEFAULT_SYNCHRONOUS = 'NORMAL';

/** The options every SQLite store takes for its connection. */
export interface SqliteConnectionOptions {
  /**
   * `NORMAL` (default) survives a crash of the process, and in WAL mode may lose the last
   * commits on power loss. `FULL` also survives power loss, at about three times the cost of a
   * commit (which blocks the event loop).
   * @default 'NORMAL'
   */
  synchronous?: 'NORMAL' | 'FULL';
  /** How long a write waits for another process's lock before failing. @default 5_000 (SQLITE_BUSY_TIMEOUT_MS) */
  busyTimeoutMs?: number;
  /**
   * Which SQLite driver opens the file: `'better-sqlite3'` (the native addon, an optional
   * dependency) or `'node:sqlite'` (built into Node.js 22.16+ and 24+, no native code). Same
   * file, schema and migrations on both. Only for a file name: an open Database is its own driver.
   * @default better-sqlite3 when it is installed and loads, else node:sqlite where Node.js has it
   */
  driver?: SqliteDriver;
}

/** The shape of {@link SqliteConnectionOptions}, for the factories' option checks. */
export const sqliteConnectionShape = {
  synchronous: optional(oneOf(['NORMAL', 'FULL'], "must be 'NORMAL' or 'FULL'")),
  busyTimeoutMs: optional(numberIn(0, MAX_TIMER_MS, { integer: true })),
  driver: optional(oneOf(SQLITE_DRIVERS, `must be ${SQLITE_DRIVERS.map((name) => `'${name}'`).join(' or ')}`)),
};

/** The first argument of a SQLite factory: a file name, or a better-sqlite3 Database the application opened. */
export const sqliteTarget = custom<string | SqliteDatabase>(
  (value) => (typeof value === 'string' ? value.trim() !== '' : isConnection(value)),
  'must be a file name or an open better-sqlite3 Database',
);

export interface OpenedConnection {
  db: SqliteConnection;
  /** Opened here from a file name, so `close()` closes it; a Database that was passed in stays open. */
  owned: boolean;
  driver: SqliteDriver;
}

/**
 * A connection in WAL mode with the given durability and busy timeout. A file name opens (and
 * creates) the file; an open Database is configured as it is. `foreignKeys` is for tables of
 * this package only: it is never switched on for an application's own connection.
 * @throws ConfigurationError when the file cannot be opened or is not a SQLite database
 */
export function openConnection(
  target: string | SqliteDatabase,
  options: { [K in keyof SqliteConnectionOptions]?: SqliteConnectionOptions[K] | undefined } & { foreignKeys?: boolean },
): OpenedConnection {
  const owned = typeof target === 'string';
  if (!owned && options.driver !== undefined) {
    const reason = 'applies to a file name: an open Database is its own driver';
    throw new ConfigurationError({ option: 'driver', reason }, `The option driver ${reason}`);
  }
  const { db, driver } = typeof target === 'string' ? openFile(target, options.driver) : givenConnection(target);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? SQLITE_DEFAULT_SYNCHRONOUS}`);
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? SQLITE_BUSY_TIMEOUT_MS}`);
    if (owned && options.foreignKeys) db.pragma('foreign_keys = ON');
  } catch (error) {
    if (owned) db.close();
    throw unusable(error);
  }
  return { db, owned, driver };
}

function openFile(file: string, driver: SqliteDriver | undefined): { db: SqliteConnection; driver: SqliteDriver } {
  try {
    return openSqliteFile(file, driver, driver === undefined ? 'database' : 'driver');
  } catch (error) {
    throw error instanceof ConfigurationError ? error : unusable(error);
  }
}

function unusable(error: unknown): ConfigurationError {
  // SQLite's own message ("unable to open database file", "file is not a database") names no path.
  const reason = `cannot be opened: ${(error as Error).message}`;
  return new ConfigurationError({ option: 'database', reason }, `The SQLite database ${reason}`, { cause: error });
}

function isConnection(value: unknown): boolean {
  const candidate = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  return ['prepare', 'exec', 'pragma', 'transaction', 'close'].every((method) => typeof candidate[method] === 'function');
}
