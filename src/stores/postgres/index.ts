/** acct-webhook/postgres: the stores on PostgreSQL, the scale-out path (needs `pg`). This file only re-exports. */
export { postgresStore, type PostgresStoreOptions } from './idempotency-store.js';
export { postgresDispatchStore, type PostgresDispatchStoreOptions } from './dispatch-store.js';
export type { PostgresConnectionOptions, PostgresPool } from './pool.js';
export { AtomicEffectTimeoutError, PostgresValueError } from './errors.js';
export type { PostgresAtomicClient, PostgresAtomicEffect } from '../../ports/atomic-effect.js';
