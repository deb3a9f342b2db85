import { describe } from 'vitest';
import { postgresDispatchStore } from '../../../src/stores/postgres/index.js';
import { CONCURRENCY, starvationCase } from '../../dispatcher/fairness-case.js';
import { testDispatcher } from '../../dispatcher/fixtures.js';
import { POSTGRES_URL, useTestDatabase } from '../../helpers/postgres.js';

describe('fairness on PostgreSQL: one business cannot starve another', () => {
  const database = useTestDatabase({ poolSize: 2 });
  for (const workers of [1, 2]) {
    describe(`${workers} worker(s) on one schema, each its own pool`, () => {
      let schema = '';
      starvationCase(workers, () => {
        schema ||= database.newSchema();
        return testDispatcher({ store: postgresDispatchStore(POSTGRES_URL, { schema }), concurrency: CONCURRENCY });
      });
    });
  }
});
