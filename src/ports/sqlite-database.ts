/**
 * The part of a better-sqlite3 `Database` that the public types name: what an atomic effect gets
 * and what `sqliteStore` accepts instead of a file name. Structural, so the package's types do
 * not depend on `@types/better-sqlite3` (a library user need not install it), while a real
 * better-sqlite3 `Database` fits as it is.
 */
export interface SqliteDatabase {
  prepare(source: string): SqliteStatement;
  exec(source: string): unknown;
}

/** A prepared statement, as better-sqlite3's `Statement`: parameters by position or by name. */
export interface SqliteStatement {
  run(...parameters: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...parameters: unknown[]): unknown;
  all(...parameters: unknown[]): unknown[];
}

/**
 * A handler's own database write that must commit together with the completion mark. It runs
 * synchronously inside the store's transaction with the store's database handle.
 */
export type AtomicEffect = (db: SqliteDatabase) => void;
