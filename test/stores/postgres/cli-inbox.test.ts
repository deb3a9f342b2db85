import { describe, expect, it } from 'vitest';
import { createReceiver, Webhooks, type Receiver } from '../../../src/index.js';
import { postgresStore } from '../../../src/stores/postgres/index.js';
import { createTestEvent, signedRequest } from '../../../src/testing/index.js';
import { runCommand, testSecret } from '../../cli/helpers.js';
import { useTestDatabase } from '../../helpers/postgres.js';

// `acct-webhook inbox --pg` (its SQLite side is in test/cli/inbox.test.ts): here because it needs
// the PostgreSQL server, which the unit project does not start.

const secret = testSecret('inbox');

/** A receiver in inbox mode whose handler fails for `payment.*` until `healthy()`: those end dead after one run. */
function receiverOn(store: ReturnType<typeof postgresStore>, healthy: () => boolean): Receiver {
  return createReceiver({
    secret,
    store,
    logger: false,
    inbox: { pollIntervalMs: 5, retryDelaysMs: [] },
    handlers: new Webhooks().on('payment.*', () => {
      if (!healthy()) throw new Error('the ledger is down');
    }),
  });
}

async function deliver(receiver: Receiver, event: object): Promise<void> {
  const { body, headers } = signedRequest(event, secret);
  expect((await receiver.receive({ rawBody: body, headers, method: 'POST' })).status).toBe(200);
}

describe('acct-webhook inbox --pg', () => {
  const database = useTestDatabase();

  it('reads and retries the inbox of a PostgreSQL store', async () => {
    const schema = database.newSchema();
    const store = postgresStore(database.url, { schema });
    let healthy = false;
    const receiver = receiverOn(store, () => healthy);
    try {
      const event = createTestEvent('payment.refunded');
      await deliver(receiver, event);
      await receiver.inbox.drain();
      const listed = await runCommand(['inbox', 'list', '--pg', database.url, '--schema', schema, '--status', 'dead']);
      expect(listed.exitCode, listed.stderr).toBe(0);
      expect(listed.stdout).toContain(event.id);
      expect(listed.stdout).toContain('HANDLER_FAILED: Error: the ledger is down');
      healthy = true;
      expect((await runCommand(['inbox', 'retry', event.id, '--pg', database.url, '--schema', schema])).exitCode).toBe(0);
      await receiver.inbox.drain();
      expect((await receiver.inbox.get(event.id))?.status).toBe('done');
    } finally {
      await receiver.close();
      await store.close();
    }
  });
});
