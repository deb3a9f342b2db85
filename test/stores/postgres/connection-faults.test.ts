import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver, Webhooks, type PostgresAtomicClient, type Receiver } from '../../../src/index.js';
import { Dispatcher, StoreUnavailableError } from '../../../src/dispatcher.js';
import { postgresDispatchStore, postgresStore } from '../../../src/stores/postgres/index.js';
import { createTestEvent, signedRequest } from '../../../src/testing/index.js';
import { useTestDatabase, type TestDatabase } from '../../helpers/postgres.js';
import { close, eventDeliveries, listen } from '../../helpers/server.js';

/*
 * Terminated backends under load: every connection of one component (found by the
 * application_name its URL gives it, so no other session's connection is touched) is ended five
 * times while it works. The process must live on (pg emits 'error' on a connection the server
 * ends; with no listener Node ends the process, and vitest fails the run on that error), requests
 * answer 503 STORE_UNAVAILABLE meanwhile, emits reject with StoreUnavailableError, and afterwards
 * nothing is lost and no atomic effect is applied twice.
 */

const SECRET = 'whsec_connectionFaults0000000000000';
const KILLS = 5;
/** Progress between two kills: events acknowledged (or delivered) since the last one. */
const PROGRESS = 15;
const SENDERS = 6;

/** A URL whose connections carry `name` as application_name. */
function namedUrl(database: TestDatabase, name: string): string {
  const url = new URL(database.url);
  url.searchParams.set('application_name', name);
  return url.toString();
}

/** Ends every backend of `name` on the test database (never another session's); how many. */
async function terminate(database: TestDatabase, name: string): Promise<number> {
  // The component has connections again (it reconnected after the last kill) before this one.
  await expect
    .poll(async () => (await database.pool.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`, [name])).rows.length, { timeout: 30_000, interval: 10 })
    .toBeGreaterThan(0);
  const { rows } = await database.pool.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database() AND pid <> pg_backend_pid()`,
    [name],
  );
  return rows.length;
}

/** Resolves once `count()` has reached `target`. */
async function progress(count: () => number, target: number, what: string): Promise<void> {
  await expect.poll(count, { timeout: 60_000, interval: 10, message: what }).toBeGreaterThanOrEqual(target);
}

describe('PostgreSQL connections ended under load', () => {
  const database = useTestDatabase({ poolSize: 2 });
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups.length = 0;
  });

  it('the dispatcher: emits reject with STORE_UNAVAILABLE, the worker goes on, every stored event is delivered', async () => {
    const name = `acct_faults_${randomBytes(4).toString('hex')}`;
    const arrived = new Map<string, number>();
    const server = await listen(
      eventDeliveries((id, res) => {
        arrived.set(id, (arrived.get(id) ?? 0) + 1);
        res.writeHead(204).end();
      }),
    );
    cleanups.push(() => close(server.server));
    const dispatcher = new Dispatcher({
      store: postgresDispatchStore(namedUrl(database, name), { schema: database.newSchema(), poolSize: 4 }),
      allowInsecureUrls: true,
      logger: false,
      concurrency: 8,
      pollIntervalMs: 100,
      timeoutMs: 1_000,
      leaseMs: 1_500,
    });
    cleanups.push(() => dispatcher.close());
    await dispatcher.webhooks.create({ url: server.url, events: ['*'] });
    await dispatcher.start();

    const emitted: string[] = [];
    const refused: unknown[] = [];
    let loading = true;
    const senders = Array.from({ length: SENDERS }, async () => {
      while (loading) {
        try {
          emitted.push((await dispatcher.emit(createTestEvent('invoice.paid'))).id);
        } catch (error) {
          refused.push(error);
        }
      }
    });

    let killed = 0;
    for (let round = 0; round < KILLS; round++) {
      await progress(() => arrived.size, (round + 1) * PROGRESS, `deliveries before kill ${round + 1}`);
      killed += await terminate(database, name);
    }
    await progress(() => arrived.size, (KILLS + 1) * PROGRESS, 'deliveries after the last kill');
    loading = false;
    await Promise.all(senders);

    expect(killed).toBeGreaterThanOrEqual(KILLS);
    for (const error of refused) {
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    }
    // Nothing lost: every event whose emit resolved arrives (at least once: at-least-once delivery).
    await expect.poll(() => emitted.filter((id) => !arrived.has(id)), { timeout: 60_000, interval: 50 }).toEqual([]);
  });

  describe.each([
    { mode: 'direct', atomic: false, inbox: false },
    { mode: 'direct with ctx.atomic', atomic: true, inbox: false },
    { mode: 'inbox with ctx.atomic, and its worker', atomic: true, inbox: true },
  ])('a receiver, $mode', ({ atomic, inbox }) => {
    it('answers 503 STORE_UNAVAILABLE meanwhile, and every event is handled, atomic effects once', async () => {
      const name = `acct_faults_${randomBytes(4).toString('hex')}`;
      const schema = database.newSchema();
      await database.pool.query(`CREATE SCHEMA "${schema}"`);
      await database.pool.query(`CREATE TABLE "${schema}".effects (event_id text NOT NULL)`);
      const handled = new Map<string, number>();
      const hooks = new Webhooks().on('payment.received', (event, context) => {
        handled.set(event.id, (handled.get(event.id) ?? 0) + 1);
        if (atomic) context.atomic((client: PostgresAtomicClient) => client.query(`INSERT INTO "${schema}".effects VALUES ($1)`, [event.id]));
      });
      const receiver: Receiver = createReceiver({
        secret: SECRET,
        handlers: hooks,
        store: postgresStore(namedUrl(database, name), { schema, poolSize: 4 }),
        logger: false,
        ...(inbox ? { inbox: { pollIntervalMs: 50, retryDelaysMs: [0, 10, 10, 10, 10, 10, 10, 10, 10, 10] } } : {}),
      });
      cleanups.push(async () => {
        await receiver.close();
        await receiver.store.close();
      });
      await receiver.ready();

      const acknowledged: string[] = [];
      const failures: { status: number; code: unknown }[] = [];
      let loading = true;
      const senders = Array.from({ length: SENDERS }, async () => {
        while (loading) {
          const { body, headers } = signedRequest(createTestEvent('payment.received'), SECRET);
          const id = (JSON.parse(body) as { id: string }).id;
          // A sender that retries until the event is acknowledged.
          for (;;) {
            const answer = await receiver.receive({ rawBody: body, headers, method: 'POST' });
            if (answer.status === 200 || answer.status === 202) break;
            const code = (answer.body as { error?: { code?: unknown } }).error?.code;
            // 409: another attempt holds the event's lease (one whose answer was lost to the fault).
            if (answer.status !== 409) failures.push({ status: answer.status, code });
          }
          acknowledged.push(id);
        }
      });
      // Progress is what the handlers did: in inbox mode that is the worker's.
      const done = () => (atomic ? handled.size : acknowledged.length);

      let killed = 0;
      for (let round = 0; round < KILLS; round++) {
        await progress(done, (round + 1) * PROGRESS, `handled before kill ${round + 1}`);
        killed += await terminate(database, name);
      }
      await progress(done, (KILLS + 1) * PROGRESS, 'handled after the last kill');
      loading = false;
      await Promise.all(senders);

      expect(killed).toBeGreaterThanOrEqual(KILLS);
      expect(failures.filter((failure) => failure.status !== 503 || failure.code !== 'STORE_UNAVAILABLE')).toEqual([]);
      // Nothing lost: every acknowledged event was handled (in inbox mode, by the worker, once it resumed).
      await expect.poll(() => acknowledged.filter((id) => !handled.has(id)), { timeout: 60_000, interval: 50 }).toEqual([]);
      if (atomic) {
        // The atomic effect commits with the done mark: once per event, whatever broke.
        const { rows } = await database.pool.query<{ event_id: string; n: string }>(`SELECT event_id, count(*) AS n FROM "${schema}".effects GROUP BY event_id`);
        expect(rows.filter((row) => row.n !== '1')).toEqual([]);
        await expect.poll(async () => (await database.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".effects`)).rows[0]!.n, { timeout: 60_000 }).toBe(acknowledged.length);
      }
    });
  });
});
