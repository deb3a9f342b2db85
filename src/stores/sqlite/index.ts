/** acct-webhook/sqlite: the stores on SQLite (better-sqlite3 or node:sqlite, loaded when a store is created). This file only re-exports. */
export { sqliteStore, type SqliteStoreOptions } from './idempotency-store.js';
export { sqliteDispatchStore, type SqliteDispatchStoreOptions } from './dispatch-store.js';
export type { SqliteConnectionOptions } from './open-connection.js';
export type { SqliteDriver } from './drivers.js';
export type { SqliteDatabase, SqliteStatement } from '../../ports/sqlite-database.js';
