import { PostgresDispatchStorage } from '../../src/postgres/index.js';
import { describePostgres, useTestDatabase } from '../helpers/postgres.js';
import { closeWhenFinished, describeDispatchStorage } from './storage-contract.js';

describePostgres('PostgreSQL', () => {
  const database = useTestDatabase({ poolSize: 4 });
  // A schema of its own per test; every storage `open()` returns has its own pool (its own
  // connections, like another process), on the same schema.
  describeDispatchStorage('PostgresDispatchStorage', () => {
    const schema = database.newSchema();
    return {
      open: () => Promise.resolve(closeWhenFinished(new PostgresDispatchStorage(database.url, { schema, poolSize: 4 }))),
      async countDeliveries(status) {
        const result = await database.pool.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM "${schema}".dispatch_deliveries WHERE status = $1`, [status]);
        return result.rows[0]!.n;
      },
    };
  });
});
