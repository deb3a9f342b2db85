import { existsSync } from 'node:fs';
import { Dispatcher } from '../platform/node-dispatcher.js';
import type { DispatcherOptions } from '../dispatcher/options.js';
import type { LoggerOption } from '../logging/logger.js';
import { sqliteFileHasTable } from '../stores/sqlite/inspect.js';
import { CliError } from './errors.js';
import { readFileStart } from './input.js';

/** Every SQLite 3 database file starts with these 16 bytes. */
export const SQLITE_HEADER = Buffer.from('SQLite format 3\u0000', 'latin1');
/** A table every dispatch database has; its absence means some other SQLite file. */
const DISPATCH_TABLE = 'dispatch_attempts';

/** Whether `file` is a SQLite database (by its header); UNREADABLE_FILE when it cannot be read. */
export async function isSqliteFile(file: string): Promise<boolean> {
  return (await readFileStart(file, SQLITE_HEADER.length)).equals(SQLITE_HEADER);
}

/**
 * Checks, without writing anything, that `file` is a dispatcher's database: an existing file
 * (UNREADABLE_FILE), SQLite (MALFORMED_INPUT) with the dispatcher's tables (MALFORMED_INPUT). So
 * a typo in `--db` is an error, not a new empty database, and another SQLite file stays untouched.
 */
export async function checkDispatchDatabase(file: string): Promise<void> {
  await checkSqliteFile(file, DISPATCH_TABLE, "a dispatcher's");
}

/** Checks that `file` exists, is SQLite and has `table` (whose database it is: `owner`), without writing. */
export async function checkSqliteFile(file: string, table: string, owner: string): Promise<void> {
  if (!(await isSqliteFile(file))) {
    throw new CliError('MALFORMED_INPUT', `${file} is not a SQLite database`, { file });
  }
  if (!sqliteFileHasTable(file, table)) {
    throw new CliError('MALFORMED_INPUT', `${file} is a SQLite database, but not ${owner} (no ${table} table)`, { file });
  }
}

export interface OpenDispatcherOptions {
  /** Create the database when there is no file yet (registering a webhook); otherwise it must exist. An existing file is checked either way. */
  create?: boolean;
  allowInsecureUrls?: boolean;
  concurrency?: number;
  logger?: LoggerOption;
  onAttempt?: DispatcherOptions['onAttempt'];
  metrics?: DispatcherOptions['metrics'];
  /** The Dispatcher's clock (a sandbox's, for its database). @default Date.now */
  clock?: () => number;
}

/** A Dispatcher on the SQLite file `file`. Close it when done. */
export async function openDispatcher(file: string, options: OpenDispatcherOptions = {}): Promise<Dispatcher> {
  if (!options.create || existsSync(file)) await checkDispatchDatabase(file);
  return new Dispatcher({
    database: file,
    logger: options.logger ?? false,
    allowInsecureUrls: options.allowInsecureUrls ?? false,
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    ...(options.onAttempt === undefined ? {} : { onAttempt: options.onAttempt }),
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
}
