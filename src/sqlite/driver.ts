import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { ConfigurationError } from '../errors.js';

/** better-sqlite3's `Database` as this package uses it inside; never named by a public type. */
export type SqliteConnection = BetterSqlite3.Database;
type Driver = typeof BetterSqlite3;

/** The npm package that holds the native SQLite driver. */
export const SQLITE_DRIVER_PACKAGE = 'better-sqlite3';

let driver: Driver | undefined;

/**
 * better-sqlite3, loaded the first time a SQLite store is created — never when an entry point is
 * imported — so that a receiver on `memoryStore` or `postgresStore` runs where the native module
 * is not installed (or not built). `createRequire` works in both builds: tsup's shims give the
 * CommonJS output an `import.meta.url`.
 * @throws ConfigurationError when the package cannot be found
 */
export function loadSqliteDriver(option: string): Driver {
  driver ??= requireDriver(option);
  return driver;
}

function requireDriver(option: string): Driver {
  try {
    return createRequire(import.meta.url)(SQLITE_DRIVER_PACKAGE) as Driver;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'MODULE_NOT_FOUND') throw error;
    throw new ConfigurationError(
      { option, reason: `needs the ${SQLITE_DRIVER_PACKAGE} package: install it (npm install ${SQLITE_DRIVER_PACKAGE}), or use memoryStore() or postgresStore()` },
      `SQLite storage needs the ${SQLITE_DRIVER_PACKAGE} package, which is not installed: npm install ${SQLITE_DRIVER_PACKAGE}, or use memoryStore() or postgresStore() from acct-webhook/postgres`,
      { cause: error },
    );
  }
}
