import { beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, Webhooks, type PostgresAtomicClient, type Receiver } from '../../../src/index.js';
import { postgresStore } from '../../../src/stores/postgres/index.js';
import { createTestEvent, signedRequest } from '../../../src/testing/index.js';
import { useTestDatabase } from '../../helpers/postgres.js';
import { OUTCOME_TIMEOUT_MS } from '../../helpers/patience.js';

/*
 * context.atomic on PostgreSQL: the handler's statements run in the transaction of the done mark,
 * on a connection of the store's pool, in direct and in inbox mode.
 */

const SECRET = 'whsec_postgresAtomicSecret0000000000';

describe('atomic effects on PostgreSQL', () => {
  const database = useTestDatabase();
  let schema: string;
  beforeAll(async () => {
    schema = database.newSchema();
    await database.pool.query(`CREATE SCHEMA "${schema}"`);
    await database.pool.query(`CREATE TABLE "${schema}".payments (event_id text NOT NULL, amount int NOT NULL)`);
  });

  const payments = async (eventId: string) =>
    (await database.pool.query(`SELECT amount FROM "${schema}".payments WHERE event_id = $1`, [eventId])).rows as { amount: number }[];
  const insertPayment = (client: PostgresAtomicClient, eventId: string, amount: number) =>
    client.query(`INSERT INTO "${schema}".payments VALUES ($1, $2)`, [eventId, amount]);
  const deliver = (receiver: Receiver, body: string) =>
    receiver.receive({ rawBody: body, headers: signedRequest(JSON.parse(body) as object, SECRET).headers, method: 'POST' });

  async function withReceiver<T>(hooks: Webhooks, options: { handlerTimeoutMs?: number; inbox?: boolean }, work: (receiver: Receiver) => Promise<T>): Promise<T> {
    const receiver = createReceiver({
      secret: SECRET,
      handlers: hooks,
      store: postgresStore(database.url, { schema, poolSize: 3 }),
      logger: false,
      ...(options.handlerTimeoutMs ? { handlerTimeoutMs: options.handlerTimeoutMs } : {}),
      ...(options.inbox ? { inbox: { pollIntervalMs: 20, retryDelaysMs: [0, 0] } } : {}),
    });
    try {
      return await work(receiver);
    } finally {
      await receiver.close();
      await receiver.store.close();
    }
  }

  describe('direct mode', () => {
    it('applies the effect once, with the completion, on the transaction that marks the event done', async () => {
      const hooks = new Webhooks().on('payment.received', (event, { atomic }) => {
        atomic(async (client: PostgresAtomicClient) => {
          // The done mark is written first, in this transaction: the effect sees it, nobody else does yet.
          const mark = await client.query(`SELECT state FROM "${schema}".acct_webhook_events WHERE event_id = $1`, [event.id]);
          expect(mark.rows).toEqual([{ state: 'completed' }]);
          await insertPayment(client, event.id, event.data.object.amount);
        });
      });
      await withReceiver(hooks, {}, async (receiver) => {
        const { body } = signedRequest(createTestEvent('payment.received'), SECRET);
        const id = (JSON.parse(body) as { id: string }).id;
        expect((await deliver(receiver, body)).status).toBe(200);
        expect((await deliver(receiver, body)).body).toMatchObject({ duplicate: true });
        expect(await payments(id)).toEqual([{ amount: 16950 }]);
      });
    });

    it('rolls back every effect and the done mark when one fails: 500, and the retry applies them once', async () => {
      let fail = true;
      const hooks = new Webhooks().on('payment.received', (event, { atomic }) => {
        atomic((client: PostgresAtomicClient) => insertPayment(client, event.id, 1));
        atomic(async (client: PostgresAtomicClient) => {
          if (fail) await client.query('SELECT 1 / 0');
        });
      });
      await withReceiver(hooks, {}, async (receiver) => {
        const { body } = signedRequest(createTestEvent('payment.received'), SECRET);
        const id = (JSON.parse(body) as { id: string }).id;
        const failed = await deliver(receiver, body);
        expect(failed).toMatchObject({ status: 500, body: { error: { code: 'HANDLER_FAILED' } } });
        expect(await payments(id)).toEqual([]);
        const mark = await database.pool.query(`SELECT state FROM "${schema}".acct_webhook_events WHERE event_id = $1`, [id]);
        expect(mark.rows).toEqual([{ state: 'processing' }]);
        fail = false;
        expect((await deliver(receiver, body)).status).toBe(200);
        expect(await payments(id)).toEqual([{ amount: 1 }]);
      });
    });

    it('gives the effects what is left of the handler budget: a statement or an await past it rolls back', async () => {
      const reported: unknown[] = [];
      let late!: Promise<unknown>;
      const hooks = new Webhooks()
        .on('payment.received', (event, { atomic }) => {
          atomic((client: PostgresAtomicClient) => insertPayment(client, event.id, 1));
          // A lock wait or a slow statement: the server cancels it at the budget.
          atomic(async (client: PostgresAtomicClient) => {
            await client.query('SELECT pg_sleep(30)');
          });
        })
        .on('invoice.paid', (event, { atomic }) => {
          atomic(async (client: PostgresAtomicClient) => {
            // Work outside SQL that never ends in time; its statement after the deadline is refused.
            late = new Promise((resolve) => setTimeout(resolve, 400)).then(() => insertPayment(client, event.id, 2));
            await late;
          });
        })
        .onError((error) => {
          reported.push(...error.errors);
        });
      await withReceiver(hooks, { handlerTimeoutMs: 250 }, async (receiver) => {
        const slow = signedRequest(createTestEvent('payment.received'), SECRET);
        expect((await deliver(receiver, slow.body)).status).toBe(500);
        expect(await payments((JSON.parse(slow.body) as { id: string }).id)).toEqual([]);
        // The server cancels the statement (57014, query_canceled) or the deadline fails the
        // transaction first: they fall due together.
        expect(reported).toHaveLength(1);
        expect(['57014', 'ATOMIC_EFFECT_TIMEOUT']).toContain((reported[0] as { code: string }).code);

        const hanging = signedRequest(createTestEvent('invoice.paid'), SECRET);
        expect((await deliver(receiver, hanging.body)).status).toBe(500);
        expect(reported[1]).toMatchObject({ code: 'ATOMIC_EFFECT_TIMEOUT' });
        await expect(late).rejects.toThrow('The transaction of the atomic effects is over');
        expect(await payments((JSON.parse(hanging.body) as { id: string }).id)).toEqual([]);
      });
    });
  });

  describe('inbox mode', () => {
    it('commits the effect with "done"; a failing effect leaves the event pending with nothing applied, the retry applies it once', async () => {
      let runs = 0;
      const hooks = new Webhooks().on('payment.received', (event, { atomic }) => {
        runs++;
        atomic((client: PostgresAtomicClient) => insertPayment(client, event.id, event.data.object.amount));
        atomic(async (client: PostgresAtomicClient) => {
          if (runs === 1) await client.query('SELECT 1 / 0');
        });
      });
      await withReceiver(hooks, { inbox: true }, async (receiver) => {
        const { body } = signedRequest(createTestEvent('payment.received'), SECRET);
        const id = (JSON.parse(body) as { id: string }).id;
        expect((await deliver(receiver, body)).status).toBe(200);
        await receiver.inbox.drain({ timeoutMs: OUTCOME_TIMEOUT_MS });
        expect(runs).toBe(2);
        expect(await receiver.inbox.get(id)).toMatchObject({ status: 'done', attempts: 2 });
        expect(await payments(id)).toEqual([{ amount: 16950 }]);
      });
    });
  });
});
