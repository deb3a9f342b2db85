import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/index.js';
import { Dispatcher, RETRY_SCHEDULE, type DispatcherOptions } from '../../src/dispatcher.js';
import { DEFAULT_DATABASE_FILE, MANUAL_RETRY_LIMIT } from '../../src/dispatcher/dispatcher-defaults.js';
import { sqliteDispatchStore } from '../../src/stores/sqlite/index.js';
import { createTestEvent } from '../../src/testing/index.js';
import { FakeClock } from '../helpers/clock.js';
import { withServer } from '../helpers/server.js';
import { MINUTE, Receiver, tempDir, testDispatcher } from './fixtures.js';

describe('restart', () => {
  it('stopped mid-schedule, a new Dispatcher on the same file makes the remaining attempts at the same times', async () => {
    const receiver = new Receiver(() => 500);
    await withServer(receiver.listener, async (url) => {
      const file = join(tempDir(), 'dispatch.db');
      const clock = new FakeClock();
      const options = { database: file, clock: clock.now, logger: false, allowInsecureUrls: true, pollIntervalMs: 5 } as const;
      const start = clock.now();

      const first = new Dispatcher(options);
      await first.webhooks.create({ url, events: ['*'] });
      await first.emit(createTestEvent('invoice.overdue'));
      // The fake clock only moves while nothing is in flight: jumping it past a running attempt's
      // lease would (rightly) let the worker take that attempt over as abandoned.
      await first.start();
      await receiver.received(1);
      await first.stop();
      clock.set(start + MINUTE);
      await first.start();
      await receiver.received(2);
      await first.stop();
      await first.close();

      const second = new Dispatcher(options);
      try {
        const minutes = [6, 36, 156, 636, 2076];
        for (const [index, at] of minutes.entries()) {
          clock.set(start + at * MINUTE - 1);
          expect(await second.runDue()).toBe(0);
          clock.set(start + at * MINUTE);
          expect(await second.runDue()).toBe(1);
          expect(receiver.requests).toHaveLength(3 + index);
        }
        const [delivery] = await second.deliveries.list();
        const detail = await second.deliveries.get(delivery!.id);
        expect(detail.status).toBe('finally_failed');
        expect(detail.attempts.map((attempt) => (Date.parse(attempt.attempted_at) - start) / MINUTE)).toEqual([0, 1, 6, 36, 156, 636, 2076]);
      } finally {
        await second.close();
      }
    });
  });
});

describe('options', () => {
  it('has the documented defaults', () => {
    const file = join(tempDir(), 'd.db');
    const dispatcher = new Dispatcher({ database: file, logger: false });
    expect(dispatcher.settings).toEqual({
      database: file,
      timeoutMs: 30_000,
      schedule: RETRY_SCHEDULE,
      allowInsecureUrls: false,
      allowedHosts: [],
      concurrency: 50,
      maxInFlightPerWebhook: 50,
      maxInFlightPerFailingWebhook: 1,
      initialInFlightPerWebhook: 2,
      disableFailingAfterMs: 72 * 60 * 60_000,
      failureWarnings: [0.5, 0.9],
      alertWebhookUrl: null,
      manualRetryLimit: MANUAL_RETRY_LIMIT,
      pollIntervalMs: 1_000,
      leaseMs: 45_000,
      deliveryRetentionMs: 30 * 24 * 60 * 60_000,
      payloadRetentionMs: null,
    });
    return dispatcher.close();
  });

  it(`uses ${DEFAULT_DATABASE_FILE} in the working directory when no database is given`, async () => {
    const dir = tempDir();
    const previous = process.cwd();
    process.chdir(dir);
    try {
      const dispatcher = new Dispatcher({ logger: false });
      expect(dispatcher.settings.database).toBe('./webhook-dispatch.db');
      expect(existsSync(join(dir, 'webhook-dispatch.db'))).toBe(true);
      await dispatcher.close();
    } finally {
      process.chdir(previous);
    }
  });

  it.each<[string, Record<string, unknown>]>([
    ['timeoutMs', { timeoutMs: 0 }],
    ['timeoutMs', { timeoutMs: -1 }],
    ['timeoutMs', { timeoutMs: Number.NaN }],
    ['timeoutMs', { timeoutMs: '30000' }],
    ['timeoutMs', { timeoutMs: 2 ** 31 }],
    ['leaseMs', { timeoutMs: 1_000, leaseMs: 999 }],
    ['schedule', { schedule: [] }],
    ['schedule.1', { schedule: [0, -60] }],
    ['schedule.0', { schedule: ['60'] }],
    ['schedule.1', { schedule: [0, Infinity] }],
    ['schedule', { schedule: 'fast' }],
    ['concurrency', { concurrency: 0 }],
    ['concurrency', { concurrency: 1.5 }],
    ['allowInsecureUrls', { allowInsecureUrls: 'yes' }],
    ['allowedHosts', { allowedHosts: 'localhost' }],
    ['allowedHosts', { allowedHosts: ['http://localhost'] }],
    ['clock', { clock: 5 }],
    ['clock', { clock: () => Number.NaN }],
    ['signingClock', { signingClock: 'now' }],
    ['signingClock', { signingClock: () => -1 }],
    ['logger', { logger: {} }],
    ['logger', { logger: true }],
    ['ca', { ca: 5 }],
    ['manualRetryLimit.max', { manualRetryLimit: { max: 0, windowMs: 1000 } }],
    ['manualRetryLimit.windowMs', { manualRetryLimit: { max: 1 } }],
    ['resolveHost', { resolveHost: 'dns' }],
    ['database', { database: 42 }],
    ['database', { database: '' }],
    ['database', { database: { query: () => undefined } }],
    ['store', { store: './dispatch.db' }],
    ['store', { store: { query: () => undefined } }],
    ['pollIntervalMs', { pollIntervalMs: 0 }],
    // Shorter than the schedule's span (its waits, plus a timeout per attempt): 2 × 1 s + 60 s.
    ['deliveryRetentionMs', { timeoutMs: 1_000, schedule: [0, 60], deliveryRetentionMs: 61_999 }],
    ['deliveryRetentionMs', { deliveryRetentionMs: 1.5 }],
    ['payloadRetentionMs', { timeoutMs: 1_000, schedule: [0, 60], deliveryRetentionMs: 62_000, payloadRetentionMs: 62_001 }],
    ['payloadRetentionMs', { payloadRetentionMs: 0 }],
    ['timeout', { timeout: 200 }],
  ])('refuses a bad %s when the Dispatcher is built: %o', (option, options) => {
    const base = { logger: false, database: join(tempDir(), 'd.db') };
    let error: unknown;
    try {
      new Dispatcher({ ...base, ...options } as DispatcherOptions);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ code: 'INVALID_CONFIGURATION', details: { option, reason: expect.any(String) } });
  });

  it('takes a store or a database file, not both, and leaves a store it was given open', async () => {
    const dir = tempDir();
    const store = sqliteDispatchStore(join(dir, 'given.db'));
    expect(() => new Dispatcher({ store, database: join(dir, 'other.db'), logger: false })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: expect.objectContaining({ option: 'database' }) }),
    );
    expect(existsSync(join(dir, 'other.db'))).toBe(false);

    const dispatcher = new Dispatcher({ store, logger: false, allowInsecureUrls: true });
    expect(dispatcher.settings.database).toBeNull();
    await dispatcher.webhooks.create({ url: 'http://127.0.0.1:9/', events: ['*'] });
    await dispatcher.close();
    expect(await store.listWebhooks()).toHaveLength(1);
    await store.close();
  });
});

describe('a store that is not ready', () => {
  it('is tried again on the next call after a failure (the database was away); ready() reports it', async () => {
    const store = sqliteDispatchStore(join(tempDir(), 'dispatch.db'));
    const ready = store.ready.bind(store);
    let attempts = 0;
    store.ready = () => (++attempts === 1 ? Promise.reject(new Error('connection refused')) : ready());
    const dispatcher = new Dispatcher({ store, logger: false });
    await expect(dispatcher.ready()).rejects.toThrow('connection refused');
    expect(await dispatcher.webhooks.list()).toEqual([]);
    await dispatcher.ready();
    expect(attempts).toBe(2);
    await dispatcher.close();
    await expect(dispatcher.ready()).rejects.toMatchObject({ code: 'DISPATCHER_CLOSED' });
    await store.close();
  });
});

describe('close', () => {
  it('during an attempt: waits until it is recorded (a second close() too), then refuses further work', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const receiver = new Receiver(() => 'hang');
    await withServer(
      (req, res) => {
        receiver.listener(req, res);
        void released.then(() => res.writeHead(204).end());
      },
      async (url) => {
        const file = join(tempDir(), 'dispatch.db');
        const dispatcher = new Dispatcher({ database: file, logger: false, allowInsecureUrls: true });
        await dispatcher.webhooks.create({ url, events: ['*'] });
        await dispatcher.emit(createTestEvent('payment.received'));
        const running = dispatcher.runDue().catch((error: unknown) => error);
        await receiver.received(1);
        const closes = [dispatcher.close(), dispatcher.close()];
        release();
        await Promise.all(closes);
        expect(await running).toMatchObject({ code: 'DISPATCHER_CLOSED' });

        const reopened = testDispatcher({ database: file });
        const [delivery] = await reopened.deliveries.list();
        expect(delivery).toMatchObject({ status: 'delivered', attempt_count: 1 });
        expect(await reopened.runDue()).toBe(0);
        expect(receiver.requests).toHaveLength(1);
      },
    );
  });

  it('refuses further work with DISPATCHER_CLOSED and may be called twice', async () => {
    const dispatcher = testDispatcher();
    await dispatcher.close();
    await dispatcher.close();
    await expect(dispatcher.webhooks.list()).rejects.toMatchObject({ code: 'DISPATCHER_CLOSED' });
    await expect(dispatcher.emit(createTestEvent('invoice.paid'))).rejects.toMatchObject({ code: 'DISPATCHER_CLOSED' });
    await expect(dispatcher.runDue()).rejects.toMatchObject({ code: 'DISPATCHER_CLOSED' });
    await expect(dispatcher.start()).rejects.toMatchObject({ code: 'DISPATCHER_CLOSED' });
  });
});
