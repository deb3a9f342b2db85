import { describe } from 'vitest';
import { postgresStore } from '../../../src/stores/postgres/index.js';
import { useTestDatabase } from '../../helpers/postgres.js';
import { describeIdempotencyStore, describeInboxStore } from '../../helpers/contracts.js';

// The contract every idempotency store keeps (memoryStore and sqliteStore: test/stores/stores.test.ts).
describe('PostgreSQL', () => {
  // Each store in a schema of its own (a fresh, empty store per test), all dropped at the end.
  const database = useTestDatabase();
  describeIdempotencyStore('postgresStore', (options) => postgresStore(database.pool, { ...options, schema: database.newSchema() }));
  describeInboxStore('postgresStore', (options) => postgresStore(database.pool, { ...options, schema: database.newSchema() }));
  // Behind a pooler that cannot keep prepared statements, every statement is sent unnamed.
  describeIdempotencyStore('postgresStore, preparedStatements: false', (options) =>
    postgresStore(database.pool, { ...options, schema: database.newSchema(), preparedStatements: false }),
  );
});
