import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver, Webhooks, type Logger } from '../../../src/index.js';
import { Dispatcher } from '../../../src/dispatcher.js';
import { postgresDispatchStore, postgresStore } from '../../../src/stores/postgres/index.js';
import { wakeUpChannel } from '../../../src/stores/postgres/wake-ups.js';
import { createTestEvent, signedRequest } from '../../../src/testing/index.js';
import { useTestDatabase, type TestDatabase } from '../../helpers/postgres.js';
import { close, eventDeliveries, listen, type RunningServer } from '../../helpers/server.js';
import { ChildScript } from './child-process.js';

/*
 * Wake-ups across processes on PostgreSQL: emit and the inbox's insert NOTIFY when they commit,
 * workers LISTEN. Every worker here polls once a minute, so a delivery within milliseconds can
 * only come from a notification.
 */

const fixture = resolve(import.meta.dirname, '../..', 'fixtures', 'postgres-dispatch-worker.mjs');
const POLL_MS = 60_000;
const SECRET = 'whsec_wakeUpsSecret00000000000000000';

/** A receiver that tells when each event id arrived (performance.now()). */
class ArrivalReceiver {
  private readonly arrivals = new Map<string, number>();
  private readonly waiting = new Map<string, (at: number) => void>();
  private server: RunningServer | null = null;

  async start(): Promise<string> {
    this.server = await listen(
      eventDeliveries((id, res) => {
        const at = performance.now();
        this.arrivals.set(id, at);
        this.waiting.get(id)?.(at);
        res.writeHead(204).end();
      }),
    );
    return this.server.url;
  }

  /** When `id` arrived; rejects after `timeoutMs` (far below the poll interval). */
  arrival(id: string, timeoutMs = 10_000): Promise<number> {
    const known = this.arrivals.get(id);
    if (known !== undefined) return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${id} did not arrive within ${timeoutMs} ms`)), timeoutMs);
      this.waiting.set(id, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
  }

  async stop(): Promise<void> {
    if (this.server) await close(this.server.server);
  }
}

/** A logger that keeps its lines. */
function recordingLogger(): Logger & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  const at =
    (level: string) =>
    (...args: unknown[]): void => {
      lines.push({ level, message: String(args.find((arg) => typeof arg === 'string') ?? '') });
    };
  const logger = { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => logger };
  return logger;
}

/** Ends the server process behind every connection that listens on `channel`; how many. */
async function terminateListeners(database: TestDatabase, channel: string): Promise<number> {
  const { rows } = await database.pool.query<{ ok: boolean }>(
    `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE query = $1 AND pid <> pg_backend_pid()`,
    [`LISTEN ${channel}`],
  );
  return rows.length;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('wake-ups across processes on PostgreSQL', () => {
  const database = useTestDatabase({ poolSize: 4 });
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups.length = 0;
  });

  /** A fresh schema, a receiver, and a Dispatcher that emits to it but never sends (not started). */
  async function emitterAndReceiver(): Promise<{ schema: string; receiver: ArrivalReceiver; emitter: Dispatcher }> {
    const schema = database.newSchema();
    const receiver = new ArrivalReceiver();
    const url = await receiver.start();
    cleanups.push(() => receiver.stop());
    const emitter = new Dispatcher({ store: postgresDispatchStore(database.url, { schema, poolSize: 2 }), allowInsecureUrls: true, logger: false });
    cleanups.push(() => emitter.close());
    await emitter.webhooks.create({ url, events: ['*'] });
    return { schema, receiver, emitter };
  }

  it('a worker process delivers an event another process emits within 100 ms, though it polls once a minute', async () => {
    // This process emits and never sends (not started); the child process only sends.
    const { schema, receiver, emitter } = await emitterAndReceiver();
    const worker = ChildScript.start(fixture, [database.url, schema, '5000', '20000', '4', String(POLL_MS)]);
    cleanups.push(() => worker.stop());
    await worker.line((line) => line.ready === true, 'the worker to start');

    const latencies: number[] = [];
    for (let i = 0; i < 7; i++) {
      const started = performance.now();
      const event = await emitter.emit(createTestEvent('payment.received'));
      latencies.push((await receiver.arrival(event.id)) - started);
    }
    // Each one arrived long before a poll could have found it; typically a few milliseconds.
    expect(Math.max(...latencies)).toBeLessThan(POLL_MS / 6);
    expect(median(latencies), latencies.map((ms) => ms.toFixed(1)).join(', ')).toBeLessThan(100);
  });

  it('a lost LISTEN connection is logged, made again, and the wake-ups go on', async () => {
    const { schema, receiver, emitter } = await emitterAndReceiver();
    const logger = recordingLogger();
    const worker = new Dispatcher({ store: postgresDispatchStore(database.url, { schema, poolSize: 3 }), allowInsecureUrls: true, logger, pollIntervalMs: POLL_MS });
    cleanups.push(() => worker.close());
    await worker.start();

    expect(await terminateListeners(database, wakeUpChannel('dispatch', schema))).toBe(1);
    await expect.poll(() => logger.lines.map((line) => line.level), { timeout: 10_000 }).toEqual(['warn', 'info']);
    expect(logger.lines[0]!.message).toMatch(/wake-up connection \(LISTEN\) is lost; polling until it is back/);
    expect(logger.lines[1]!.message).toMatch(/wake-up connection \(LISTEN\) is back/);

    const event = await emitter.emit(createTestEvent('invoice.paid'));
    await receiver.arrival(event.id);
  });

  it('an inbox worker runs an event another receiver stored, though it polls once a minute', async () => {
    const schema = database.newSchema();
    const handled = new Map<string, number>();
    const waiting = new Map<string, () => void>();
    // Two stores, two pools, two LISTEN/NOTIFY peers: as far as PostgreSQL can tell, two processes.
    const storing = postgresStore(database.url, { schema, poolSize: 2 });
    cleanups.push(() => storing.close());
    await storing.ready();
    const running = createReceiver({
      secret: SECRET,
      store: postgresStore(database.url, { schema, poolSize: 3 }),
      logger: false,
      inbox: { pollIntervalMs: POLL_MS },
      handlers: new Webhooks().onAny((event) => {
        handled.set(event.id, performance.now());
        waiting.get(event.id)?.();
      }),
    });
    cleanups.push(async () => {
      await running.close();
      await running.store.close();
    });
    await running.ready();
    // The worker's first look (at start) is over, and it is listening: wait for its connection.
    const channel = wakeUpChannel('inbox', schema);
    await expect
      .poll(async () => (await database.pool.query(`SELECT 1 FROM pg_stat_activity WHERE query = $1`, [`LISTEN ${channel}`])).rows.length, { timeout: 10_000 })
      .toBe(1);

    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { body, headers } = signedRequest(createTestEvent('customer.created'), SECRET);
      const id = (JSON.parse(body) as { id: string }).id;
      const done = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${id} was not handled within 10 s`)), 10_000);
        waiting.set(id, () => {
          clearTimeout(timer);
          resolve();
        });
      });
      const started = performance.now();
      const stored = await storing.inbox!.enqueue({
        eventId: id,
        eventType: 'customer.created',
        rawBody: Buffer.from(body),
        verified: { secretIndex: 0, signatureScheme: 'v1' },
        headers,
        receivedAt: Date.now(),
        created: Date.now(),
        version: null,
      });
      expect(stored).toEqual({ status: 'queued' });
      await done;
      latencies.push(handled.get(id)! - started);
    }
    expect(median(latencies), latencies.map((ms) => ms.toFixed(1)).join(', ')).toBeLessThan(100);
  });
});
