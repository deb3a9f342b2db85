/*
 * The part of better-sqlite3's `Database` the SQLite backend is written against: a better-sqlite3
 * Database is one as it is, node:sqlite's `DatabaseSync` is given it by ./node-sqlite.ts.
 */

export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

/** A prepared statement as the backend uses it: better-sqlite3's, by position or with one object of named values. */
export interface PreparedStatement<P extends unknown[] = unknown[], R = unknown> {
  run(...parameters: P): RunResult;
  get(...parameters: P): R | undefined;
  all(...parameters: P): R[];
}

// better-sqlite3's own constraint on a transaction function, so that its Database fits.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type TransactionFunction = (...args: any[]) => unknown;
type ArgumentsOf<F> = F extends (...args: infer A) => unknown ? A : never;

/** A function that runs in a transaction (a savepoint when one is open), as better-sqlite3's `Database#transaction` makes it. */
export interface SqliteTransaction<F extends TransactionFunction> {
  (...args: ArgumentsOf<F>): ReturnType<F>;
  deferred(...args: ArgumentsOf<F>): ReturnType<F>;
  immediate(...args: ArgumentsOf<F>): ReturnType<F>;
  exclusive(...args: ArgumentsOf<F>): ReturnType<F>;
}

/** better-sqlite3's `Database` as this package uses it inside; never named by a public type. */
export interface SqliteConnection {
  /** The file name it was opened with. */
  readonly name: string;
  readonly memory: boolean;
  readonly open: boolean;
  // The same generic shape as better-sqlite3's, so that its Database is a SqliteConnection as it is.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  prepare<P extends unknown[] | {} = unknown[], R = unknown>(source: string): P extends unknown[] ? PreparedStatement<P, R> : PreparedStatement<[P], R>;
  exec(source: string): this;
  /** `PRAGMA <source>`: its rows, or with `simple` the first column of the first row. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<F extends TransactionFunction>(fn: F): SqliteTransaction<F>;
  close(): this;
}
