import { describe, it } from 'vitest';
import { loadBuilt } from '../../helpers/dist.js';
import { useTestDatabase } from '../../helpers/postgres.js';
import { killedWithEventsPending } from '../../helpers/inbox-crash.js';

describe('inbox mode on PostgreSQL after a crash', () => {
  const database = useTestDatabase();
  describe('a receiver process SIGKILLed with events pending', () => {
    it('has its events finished, once each, by the next receiver', async () => {
      const { postgresStore } = await loadBuilt('postgres');
      const schema = database.newSchema();
      await killedWithEventsPending(['pg', database.url, schema], () => postgresStore(database.url, { schema }));
    });
  });
});
