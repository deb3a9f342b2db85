/**
 * The SQLite driver of a benchmark process's stores: the one `run.mjs --drivers` names in
 * ACCT_WEBHOOK_BENCH_SQLITE_DRIVER, or, without it, the package's automatic choice.
 */
export const sqliteDriver = process.env.ACCT_WEBHOOK_BENCH_SQLITE_DRIVER || undefined;

/** The options that give a SQLite store that driver. */
export const sqliteOptions = sqliteDriver ? { driver: sqliteDriver } : {};
