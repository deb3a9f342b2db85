import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { ConfigurationError } from '../../kernel/errors.js';
import { currentRuntime, runtimeLabel, type Runtime } from '../../kernel/js-runtime.js';
import type { SqliteDatabase } from '../../ports/sqlite-database.js';
import type { SqliteConnection } from './connection-interface.js';
import { NODE_SQLITE_VERSIONS, nodeSqliteConnection, nodeSqliteSupport, type NodeSqliteSupport } from './node-sqlite.js';

/*
 * The seam between the SQLite backend and the two drivers it runs on. The backend is written
 * against the part of better-sqlite3's `Database` in ./sqlite-connection.ts; a better-sqlite3 Database is that as it
 * is, and node:sqlite's `DatabaseSync` is given it by one adapter (./node-sqlite.ts).
 */

/** The drivers a SQLite store can run on: the native addon, or the module built into Node.js 22.16+ and 24+. */
export type SqliteDriver = 'better-sqlite3' | 'node:sqlite';

/** Every driver. */
export const SQLITE_DRIVERS: readonly SqliteDriver[] = ['better-sqlite3', 'node:sqlite'];

/** The npm package that holds the native SQLite driver. */
export const SQLITE_DRIVER_PACKAGE = 'better-sqlite3';

export type { PreparedStatement, RunResult, SqliteConnection, SqliteTransaction, TransactionFunction } from './connection-interface.js';

type BetterSqlite3Driver = typeof BetterSqlite3;

/** A file opened by the driver that was asked for, or chosen. */
export interface OpenedFile {
  db: SqliteConnection;
  driver: SqliteDriver;
}

/**
 * Opens `file` (created when missing, unless `readonly`) with `driver`, or without one with the
 * driver {@link chooseSqliteDriver} takes.
 * @throws ConfigurationError when the driver asked for, or every driver, is unavailable
 * @throws the driver's own error when the file cannot be opened
 */
export function openSqliteFile(file: string, driver: SqliteDriver | undefined, option: string, { readonly = false } = {}): OpenedFile {
  const chosen = chooseSqliteDriver(driver, driverAvailability(), option);
  if (chosen === 'node:sqlite') return { db: nodeSqliteConnection(nodeSqliteSupport() as Required<NodeSqliteSupport>, file, { readonly }), driver: chosen };
  const Driver = (loadBetterSqlite3() as { driver: BetterSqlite3Driver }).driver;
  return { db: new Driver(file, readonly ? { readonly: true, fileMustExist: true } : {}), driver: chosen };
}

/** A better-sqlite3 Database the application opened (the factories' argument check made sure it is one), as the backend takes it. */
export function givenConnection(database: SqliteDatabase): OpenedFile {
  return { db: database as unknown as SqliteConnection, driver: 'better-sqlite3' };
}

/** What this process can run a SQLite store on. */
export interface SqliteDriverAvailability {
  /** Whether better-sqlite3 and its native module load; if not, whether the package is missing or its native module failed, and the error. */
  betterSqlite3: { loads: true } | { loads: false; missing: boolean; error: unknown };
  /** Whether the runtime has a node:sqlite the adapter can use (Node.js 22.16+ and 24+, Bun, Deno). */
  nodeSqlite: boolean;
  /** The runtime: better-sqlite3 runs on Node.js only, and the messages say so. */
  runtime: Runtime;
}

/**
 * The driver a store runs on: the one asked for when it is available; without one, better-sqlite3
 * when it loads, else node:sqlite where Node.js has it. better-sqlite3 stays first wherever it
 * works, although node:sqlite costs about the same (docs/performance.md): each driver is its own
 * copy of SQLite, whose locks do not see the other's within one process, so an installation must
 * not move to the other driver by itself while an application of its own may hold the same file
 * open through better-sqlite3 (docs/idempotency.md#the-sqlite-drivers).
 * @throws ConfigurationError naming what to install or which Node.js to run, with `option` as the option at fault
 */
export function chooseSqliteDriver(requested: SqliteDriver | undefined, available: SqliteDriverAvailability, option: string): SqliteDriver {
  const runtime = runtimeLabel(available.runtime);
  // better-sqlite3 is looked at (and so loaded) only when it may be taken.
  if (requested === 'node:sqlite' || (requested === undefined && !available.betterSqlite3.loads && available.nodeSqlite)) {
    if (available.nodeSqlite) return 'node:sqlite';
    refuse(option, `needs node:sqlite, which ${runtime} does not have (${NODE_SQLITE_VERSIONS} have it)`);
  }
  const native = available.betterSqlite3;
  if (native.loads) return 'better-sqlite3';
  if (available.runtime.name !== 'Node.js') {
    // Bun and Deno load no addon built on V8's own API, as better-sqlite3 is: nothing to install or rebuild.
    const reason = `needs ${SQLITE_DRIVER_PACKAGE}, a Node.js addon that ${runtime} cannot load (${firstLine(native.error)})`;
    if (requested === 'better-sqlite3') refuse(option, `${reason}: leave the driver option out, and the store runs on ${available.runtime.name}'s node:sqlite`, native.error);
    refuse(option, `${reason}, and ${runtime} has no node:sqlite: use memoryStore() or postgresStore()`, native.error);
  }
  const install = native.missing
    ? `the ${SQLITE_DRIVER_PACKAGE} package, which is not installed (npm install ${SQLITE_DRIVER_PACKAGE})`
    : `${SQLITE_DRIVER_PACKAGE}, whose native module does not load on ${runtime} (${firstLine(native.error)}): rebuild it (npm rebuild ${SQLITE_DRIVER_PACKAGE})`;
  // A package that is not installed is said in full by the message; its resolver error (a require
  // stack of this package's own files) would only bury it. A module that fails to load keeps its cause.
  const cause = native.missing ? undefined : native.error;
  if (requested === 'better-sqlite3') refuse(option, `needs ${install}`, cause);
  refuse(option, `needs ${install}, or a Node.js with node:sqlite (${NODE_SQLITE_VERSIONS}); or use memoryStore() or postgresStore()`, cause);
}

function refuse(option: string, reason: string, cause?: unknown): never {
  throw new ConfigurationError({ option, reason }, `SQLite storage ${reason}`, cause === undefined ? undefined : { cause });
}

const firstLine = (error: unknown): string => String(error instanceof Error ? error.message : error).split('\n')[0]!;

/** What this process has, each part found once, when a store first needs it. */
function driverAvailability(): SqliteDriverAvailability {
  return {
    get betterSqlite3() {
      const native = loadBetterSqlite3();
      return 'driver' in native ? { loads: true as const } : { loads: false as const, ...native };
    },
    nodeSqlite: nodeSqliteSupport().module !== undefined,
    runtime: currentRuntime(),
  };
}

let loaded: { driver: BetterSqlite3Driver } | { error: unknown; missing: boolean } | undefined;

/**
 * better-sqlite3, loaded the first time a SQLite store is created — never when an entry point is
 * imported — so that a receiver on `memoryStore` or `postgresStore` runs where the native module
 * is not installed (or not built). Its native module is loaded too (better-sqlite3 does that on
 * the first `new Database`): an addon built for another Node.js is found here, and the automatic
 * choice can take node:sqlite instead. `createRequire` works in both builds: tsup's shims give
 * the CommonJS output an `import.meta.url`.
 */
function loadBetterSqlite3(): NonNullable<typeof loaded> {
  if (loaded) return loaded;
  try {
    const Driver = createRequire(import.meta.url)(SQLITE_DRIVER_PACKAGE) as BetterSqlite3Driver;
    new Driver(':memory:').close();
    loaded = { driver: Driver };
  } catch (error) {
    const missing = (error as { code?: unknown }).code === 'MODULE_NOT_FOUND' && firstLine(error).includes(`'${SQLITE_DRIVER_PACKAGE}'`);
    loaded = { error, missing };
  }
  return loaded;
}
