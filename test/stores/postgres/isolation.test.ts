import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../../src/dispatcher.js';
import { postgresDispatchStore } from '../../../src/stores/postgres/index.js';
import { createTestEvent } from '../../../src/testing/index.js';
import { Receiver } from '../../dispatcher/fixtures.js';
import { useTestDatabase } from '../../helpers/postgres.js';
import { close, listen } from '../../helpers/server.js';
import { ChildScript } from './child-process.js';

const fixture = resolve(import.meta.dirname, '../..', 'fixtures', 'postgres-dispatch-worker.mjs');
const EVENTS = 60;
const HANGING = 3;
const TIMEOUT_MS = 1_000;
const LEASE_MS = 3_000;
/** Per worker: two of them hold room for the three hanging receivers' caps (3 × 10) and the healthy one's (10). */
const CONCURRENCY = 20;
const ROUNDS = 3;

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('isolation on PostgreSQL, two worker processes', () => {
  const database = useTestDatabase({ poolSize: 4 });

  /**
   * Milliseconds from emitting EVENTS events until the healthy receiver has all of them, with
   * `hanging` receivers that never answer subscribed to the same events, sent by two worker
   * processes sharing one schema (and so one cap per registration).
   */
  async function healthyFinish(hanging: number): Promise<number> {
    const schema = database.newSchema();
    const healthy = new Receiver(() => 204);
    const servers = [await listen(healthy.listener), ...(await Promise.all(Array.from({ length: hanging }, () => listen(new Receiver(() => 'hang').listener))))];
    const store = postgresDispatchStore(database.pool, { schema });
    const emitter = new Dispatcher({ store, allowInsecureUrls: true, logger: false });
    const workers: ChildScript[] = [];
    try {
      for (const server of servers) await emitter.webhooks.create({ url: `${server.url}/webhooks`, events: ['*'] });
      for (let i = 0; i < 2; i++) workers.push(ChildScript.start(fixture, [database.url, schema, String(TIMEOUT_MS), String(LEASE_MS), String(CONCURRENCY)]));
      await Promise.all(workers.map((worker) => worker.line((line) => line.ready === true, 'the worker to start')));
      const started = performance.now();
      await Promise.all(Array.from({ length: EVENTS }, () => emitter.emit(createTestEvent('invoice.paid'))));
      await healthy.received(EVENTS);
      const elapsed = performance.now() - started;
      expect(new Set(healthy.eventIds()).size).toBe(EVENTS);
      return elapsed;
    } finally {
      expect(await Promise.all(workers.map((worker) => worker.stop()))).toEqual(workers.map(() => 0));
      await emitter.close();
      await Promise.all(servers.map((server) => close(server.server)));
    }
  }

  it(`the healthy receiver's ${EVENTS} deliveries finish within 2× the time they take alone, beside ${HANGING} receivers that never answer`, async () => {
    const alone: number[] = [];
    const beside: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      alone.push(await healthyFinish(0));
      beside.push(await healthyFinish(HANGING));
    }
    expect(median(beside)).toBeLessThanOrEqual(2 * median(alone));
  });
});
