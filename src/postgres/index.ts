/** acct-webhook/postgres: the scale-out path (needs `pg`). This file only re-exports. */
export { postgresStore, type PostgresIdempotencyStore, type PostgresStoreOptions } from './store.js';
export { PostgresDispatchStorage, type PostgresDispatchStorageOptions } from './dispatch-storage.js';
export { redactUrl, type PostgresConnectionOptions, type PostgresPool, type PostgresPoolClient, type PostgresQueryable, type PostgresQueryConfig, type PostgresQueryResult } from './pool.js';
export { DEFAULT_POSTGRES_SCHEMA, POSTGRES_CONNECT_TIMEOUT_MS, POSTGRES_POOL_SIZE, POSTGRES_PREPARED_STATEMENTS } from './defaults.js';
export { PostgresValueError } from './errors.js';
export { ConfigurationError } from '../errors.js';
