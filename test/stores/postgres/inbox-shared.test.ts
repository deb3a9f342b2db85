import { describe, expect, it } from 'vitest';
import { createReceiver, Webhooks, type Receiver } from '../../../src/index.js';
import { postgresStore } from '../../../src/stores/postgres/index.js';
import { createTestEvent, signedRequest } from '../../../src/testing/index.js';
import { useTestDatabase } from '../../helpers/postgres.js';
import { OUTCOME_TIMEOUT_MS } from '../../helpers/patience.js';

const SECRET = 'whsec_inboxSharedSecret0000000000000';
const EVENTS = 400;

describe('inbox mode on PostgreSQL with several receivers', () => {
  const database = useTestDatabase();

  it("shares one inbox: every event's handlers complete once, one object's events one at a time, the work spread", async () => {
    const schema = database.newSchema();
    const handledBy = new Map<string, number[]>();
    const runningPerObject = new Map<string, number>();
    let overlap = 0;
    // Three receivers, each with a pool of its own: three processes as far as PostgreSQL can tell.
    const receivers: Receiver[] = [0, 1, 2].map((index) =>
      createReceiver({
        secret: SECRET,
        store: postgresStore(database.url, { schema, poolSize: 4 }),
        logger: false,
        ordering: true,
        inbox: { pollIntervalMs: 10, concurrency: 4 },
        handlers: new Webhooks().onAny(async (event) => {
          const object = event.data.object.id;
          const running = (runningPerObject.get(object) ?? 0) + 1;
          runningPerObject.set(object, running);
          if (running > 1) overlap++;
          await new Promise((resolve) => setTimeout(resolve, 1));
          runningPerObject.set(object, running - 1);
          handledBy.set(event.id, [...(handledBy.get(event.id) ?? []), index]);
        }),
      }),
    );
    try {
      // 40 objects, 10 events each, delivered round-robin to the three receivers, each twice.
      const events = Array.from({ length: EVENTS }, (_, i) =>
        createTestEvent('customer.updated', { created: new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString(), data: { object: { id: `cus_${i % 40}` } } }),
      );
      await Promise.all(
        [...events, ...events].map(async (event, i) => {
          const { body, headers } = signedRequest(event, SECRET);
          const answer = await receivers[i % 3]!.receive({ rawBody: body, headers, method: 'POST' });
          expect(answer.status).toBe(200);
        }),
      );
      await Promise.all(receivers.map((receiver) => receiver.inbox.drain({ timeoutMs: OUTCOME_TIMEOUT_MS })));
      expect(handledBy.size).toBe(EVENTS);
      expect([...handledBy.values()].filter((runs) => runs.length !== 1)).toEqual([]);
      expect(overlap).toBe(0);
      const perReceiver = [0, 1, 2].map((index) => [...handledBy.values()].filter(([by]) => by === index).length);
      expect(perReceiver.every((count) => count > 0), String(perReceiver)).toBe(true);
    } finally {
      for (const receiver of receivers) {
        await receiver.close();
        await receiver.store.close();
      }
    }
  });
});
