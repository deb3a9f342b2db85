import { describe, expect, it, vi } from 'vitest';
import { createTestEvent } from '../../src/testing/index.js';
import { Worker } from '../../src/dispatcher/worker.js';
import { withServer } from '../helpers/server.js';
import { Dispatcher } from '../../src/dispatcher.js';
import { clockedDispatcher, MINUTE, Receiver, testDispatcher } from './fixtures.js';

/** A promise with its resolve function outside. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('the worker (start/stop)', () => {
  it('sends what is emitted while it runs, woken by emit', async () => {
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      // A long poll interval: only the wake-up from emit can explain a prompt delivery.
      const dispatcher = testDispatcher({ pollIntervalMs: 60_000 });
      await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.start();
      const event = await dispatcher.emit(createTestEvent('invoice.paid'));
      await receiver.received(1);
      await dispatcher.stop();
      expect(receiver.eventIds()).toEqual([event.id]);
      const [delivery] = await dispatcher.deliveries.list();
      expect(delivery!.status).toBe('delivered');
    });
  });

  it('never has more than `concurrency` attempts in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const receiver = new Receiver(() => 'hang');
    const held: (() => void)[] = [];
    await withServer(
      (req, res) => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        held.push(() => {
          inFlight -= 1;
          res.writeHead(204).end();
        });
        receiver.listener(req, res);
      },
      async (url) => {
        // Three in flight from the start: no slow start for this one receiver.
        const dispatcher = testDispatcher({ concurrency: 3, initialInFlightPerWebhook: 3 });
        await dispatcher.webhooks.create({ url, events: ['*'] });
        for (let i = 0; i < 10; i++) await dispatcher.emit(createTestEvent('customer.updated'));
        await dispatcher.start();
        // Release one request at a time, each only once the worker has filled every slot again.
        for (let released = 0; released < 10; released++) {
          await receiver.received(Math.min(released + 3, 10));
          expect(inFlight).toBeLessThanOrEqual(3);
          held.shift()!();
        }
        await dispatcher.stop();
        expect(peak).toBe(3);
        expect(receiver.requests).toHaveLength(10);
        expect(await dispatcher.deliveries.list({ status: 'delivered' })).toHaveLength(10);
      },
    );
  });

  it('stop() during an attempt waits for it and records it exactly once', async () => {
    const answer = deferred();
    const receiver = new Receiver(() => 'hang');
    await withServer(
      (req, res) => {
        receiver.listener(req, res);
        void answer.promise.then(() => res.writeHead(200).end('ok'));
      },
      async (url) => {
        const dispatcher = testDispatcher();
        await dispatcher.webhooks.create({ url, events: ['*'] });
        await dispatcher.emit(createTestEvent('payment.received'));
        await dispatcher.start();
        await receiver.received(1);

        let stopped = false;
        const stopping = dispatcher.stop().then(() => (stopped = true));
        await new Promise((resolve) => setImmediate(resolve));
        expect(stopped).toBe(false); // the attempt is still in flight
        answer.resolve();
        await stopping;

        const [delivery] = await dispatcher.deliveries.list();
        const detail = await dispatcher.deliveries.get(delivery!.id);
        expect(detail.status).toBe('delivered');
        expect(detail.attempts).toHaveLength(1);
        expect(detail.attempts[0]).toMatchObject({ response_status: 200, response_body: 'ok' });
        expect(await dispatcher.runDue()).toBe(0);
        expect(receiver.requests).toHaveLength(1);
      },
    );
  });

  it('holds an attempt in flight for leaseMs of its clock, so a fast clock does not hand it to another worker', async () => {
    const answer = deferred();
    const receiver = new Receiver(() => 'hang');
    await withServer(
      (req, res) => {
        receiver.listener(req, res);
        void answer.promise.then(() => res.writeHead(200).end('ok'));
      },
      async (url) => {
        const { dispatcher, clock } = clockedDispatcher({ leaseMs: 600 * MINUTE });
        const other = new Dispatcher({ database: dispatcher.settings.database!, clock: clock.now, logger: false, allowInsecureUrls: true });
        await dispatcher.webhooks.create({ url, events: ['*'] });
        await dispatcher.emit(createTestEvent('payment.received'));
        const running = dispatcher.runDue();
        await receiver.received(1);
        clock.advance(599 * MINUTE); // a clock 1000 times faster than real time would be here soon
        expect(await other.runDue()).toBe(0);
        const [inFlight] = await dispatcher.deliveries.list();
        expect(Date.parse(inFlight!.next_attempt_at!)).toBe(Date.parse(inFlight!.created_at) + 600 * MINUTE);
        answer.resolve();
        await running;
        await other.close();
        expect(receiver.requests).toHaveLength(1);
      },
    );
  });

  it('claims nothing after stop(), and can start again', async () => {
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      const dispatcher = testDispatcher();
      await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.start();
      await dispatcher.start(); // idempotent
      await dispatcher.stop();
      await dispatcher.stop(); // idempotent
      await dispatcher.emit(createTestEvent('invoice.created'));
      expect(receiver.requests).toHaveLength(0);
      expect(await dispatcher.deliveries.list({ status: 'retrying' })).toHaveLength(1);
      await dispatcher.start();
      await receiver.received(1);
      await dispatcher.stop();
      expect(await dispatcher.deliveries.list({ status: 'delivered' })).toHaveLength(1);
    });
  });
});

describe('Worker (unit)', () => {
  it('asks for at most `concurrency` jobs at a time and for the next due time, never for everything', async () => {
    const limits: number[] = [];
    let pending = 100_000;
    const worker = new Worker<number>({
      claim: (limit) => {
        limits.push(limit);
        const batch = Math.min(limit, pending, 25);
        pending -= batch;
        return Promise.resolve(Array.from({ length: batch }, (_, i) => i));
      },
      nextDueAt: () => Promise.resolve(null),
      process: () => Promise.resolve(),
      onError: (error) => {
        throw error;
      },
      clock: Date.now,
      concurrency: 10,
      pollIntervalMs: 1_000,
    });
    const ran = await worker.runDue();
    expect(ran).toBe(100_000);
    expect(Math.max(...limits)).toBe(10);
  });

  it('runDue rejects when an attempt cannot be recorded, and the loop survives a failing claim', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const done = deferred();
    const worker = new Worker<number>({
      claim: () => {
        calls += 1;
        if (calls === 1) return Promise.reject(new Error('database is locked'));
        if (calls === 2) return Promise.resolve([1]);
        done.resolve();
        return Promise.resolve([]);
      },
      nextDueAt: () => Promise.resolve(null),
      process: () => Promise.reject(new Error('disk full')),
      onError: (error) => errors.push(error),
      clock: Date.now,
      concurrency: 2,
      pollIntervalMs: 5,
    });
    worker.start();
    await done.promise;
    await worker.stop();
    expect(errors.map((error) => (error as Error).message)).toEqual(['database is locked', 'disk full']);

    const failing = new Worker<number>({
      claim: () => Promise.resolve([1]),
      nextDueAt: () => Promise.resolve(null),
      process: () => Promise.reject(new Error('disk full')),
      onError: () => undefined,
      clock: Date.now,
      concurrency: 1,
      pollIntervalMs: 5,
    });
    await expect(failing.runDue()).rejects.toThrow('disk full');
  });

  it('does not spin when a due delivery cannot be claimed (a row another transaction holds): the second empty claim waits a poll interval', async () => {
    vi.useFakeTimers();
    try {
      let claims = 0;
      const worker = new Worker<number>({
        // Answered on a timer, as a database answers: a loop that spun would claim thousands of times.
        claim: () => {
          claims += 1;
          return new Promise((resolve) => setTimeout(() => resolve([]), 0));
        },
        nextDueAt: () => Promise.resolve(500), // due: before the clock
        process: () => Promise.resolve(),
        onError: (error) => {
          throw error;
        },
        clock: () => 1_000,
        concurrency: 2,
        pollIntervalMs: 1_000,
      });
      worker.start();
      await vi.advanceTimersByTimeAsync(10);
      expect(claims).toBe(2); // once more at once: it may have been a race with another worker
      await vi.advanceTimersByTimeAsync(980);
      expect(claims).toBe(2);
      await vi.advanceTimersByTimeAsync(20);
      expect(claims).toBe(3);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(claims).toBe(4);
      const stopped = worker.stop();
      await vi.advanceTimersByTimeAsync(0);
      await stopped;
    } finally {
      vi.useRealTimers();
    }
  });
});
