import type BetterSqlite3 from 'better-sqlite3';
import { requireOptionalPackage } from '../optional-package.js';

/** better-sqlite3's `Database` as this package uses it inside; never named by a public type. */
export type SqliteConnection = BetterSqlite3.Database;
type Driver = typeof BetterSqlite3;

/** The npm package that holds the native SQLite driver. */
export const SQLITE_DRIVER_PACKAGE = 'better-sqlite3';

let driver: Driver | undefined;

/**
 * better-sqlite3, loaded the first time a SQLite store is created — never when an entry point is
 * imported — so that a receiver on `memoryStore` or `postgresStore` runs where the native module
 * is not installed (or not built).
 * @throws ConfigurationError when the package is not installed, or its native module does not load
 */
export function loadSqliteDriver(option: string): Driver {
  driver ??= requireOptionalPackage<Driver>(
    SQLITE_DRIVER_PACKAGE,
    {
      option,
      feature: 'SQLite storage',
      instead: 'or use memoryStore() or postgresStore() from acct-webhook/postgres',
      // Its install script builds (or fetches) the native module; a blocked or failed one leaves none.
      repair: `npm rebuild ${SQLITE_DRIVER_PACKAGE}`,
    },
    // The native module is opened by the first Database, not by require(): open one now, so that
    // a missing build is this error, not a store's "cannot be opened" with a list of paths.
    (loaded) => new loaded(':memory:').close(),
  );
  return driver;
}
