import { describe } from 'vitest';
import { postgresDispatchStore } from '../../src/postgres/index.js';
import { closeWhenFinished, describeDispatchStore, describeFairClaims, type DispatchStoreFixture } from '../helpers/contracts.js';
import { useTestDatabase } from '../helpers/postgres.js';

describe('PostgreSQL', () => {
  const database = useTestDatabase({ poolSize: 4 });
  // A schema of its own per test; every store `open()` returns has its own pool (its own
  // connections, like another process), on the same schema.
  const fixture = (preparedStatements = true): DispatchStoreFixture => {
    const schema = database.newSchema();
    return {
      open: () => Promise.resolve(closeWhenFinished(postgresDispatchStore(database.url, { schema, poolSize: 4, preparedStatements }))),
      async countDeliveries(status) {
        const result = await database.pool.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM "${schema}".dispatch_deliveries WHERE status = $1`, [status]);
        return result.rows[0]!.n;
      },
    };
  };
  describeDispatchStore('postgresDispatchStore', () => fixture());
  describeFairClaims('postgresDispatchStore', () => fixture());
  // Behind a pooler that cannot keep prepared statements, a claim's and a record batch's COMMIT
  // are round trips of their own (runAndCommit): the same contract.
  describeDispatchStore('postgresDispatchStore, preparedStatements: false', () => fixture(false));
});
