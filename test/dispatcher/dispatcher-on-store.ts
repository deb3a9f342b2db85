import { Writable } from 'node:stream';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { DeliveryStatus, Dispatcher, DispatcherOptions, DispatchStore, ExportedAttempt } from '../../src/dispatcher.js';
import { DELIVERY_TIMEOUT_MS, DISPATCH_LEASE_MARGIN_MS } from '../../src/dispatcher/dispatcher-defaults.js';
import { seed, type DispatchStoreFixture } from '../../src/testing/dispatch-store-contract.js';
import { createTestEvent } from '../../src/testing/index.js';
import { FakeClock } from '../helpers/clock.js';
import { withServer } from '../helpers/server.js';
import { clockedDispatcher, MINUTE, Receiver, testDispatcher } from './fixtures.js';

/*
 * The Dispatcher on each DispatchStore, end to end (a receiver on 127.0.0.1, a fake clock):
 * what this package's own tests add to the published contract (src/testing/), run by
 * test/helpers/contracts.ts's describeDispatchStore.
 */

/** A database for one test, as this repository's backends provide it: the published fixture, and a direct count. */
export interface ProjectDispatchFixture extends DispatchStoreFixture {
  /** Deliveries in a state, counted in the database directly. */
  countDeliveries(status: DeliveryStatus): Promise<number>;
}

/** Closes `storage` when the current test ends; fixtures use it for what `open()` opened. */
export function closeWhenFinished<T extends DispatchStore>(storage: T): T {
  onTestFinished(() => storage.close());
  return storage;
}

/** A dispatcher on the fixture's database (quiet, plain http to loopback allowed), closed when the test ends. */
async function dispatcherOn(fixture: DispatchStoreFixture, options: DispatcherOptions = {}): Promise<Dispatcher> {
  return testDispatcher({ store: closeWhenFinished(await fixture.open()), ...options });
}

/** The Dispatcher's schedule, manual retries, export, crashed workers and several workers, on one store. */
export function describeDispatcherOnStore(name: string, create: () => Promise<ProjectDispatchFixture> | ProjectDispatchFixture): void {
  describe(`${name}: the Dispatcher on the store`, () => {
    describe('through the Dispatcher', () => {
      it('keeps the schedule exactly: attempts at 0, 1, 6, 36, 156, 636, 2076 minutes, then finally_failed', async () => {
        const fixture = await create();
        const receiver = new Receiver(() => 500);
        await withServer(receiver.listener, async (url) => {
          const clock = new FakeClock();
          const dispatcher = await dispatcherOn(fixture, { clock: clock.now });
          await dispatcher.webhooks.create({ url, events: ['invoice.paid'] });
          const start = clock.now();
          await dispatcher.emit(createTestEvent('invoice.paid'));
          const expectedMinutes = [0, 1, 6, 36, 156, 636, 2076];
          expect(await dispatcher.runDue()).toBe(1);
          for (const minutes of expectedMinutes.slice(1)) {
            clock.set(start + minutes * MINUTE - 1);
            expect(await dispatcher.runDue()).toBe(0);
            clock.set(start + minutes * MINUTE);
            expect(await dispatcher.runDue()).toBe(1);
          }
          const [delivery] = await dispatcher.deliveries.list();
          const detail = await dispatcher.deliveries.get(delivery!.id);
          expect(detail).toMatchObject({ status: 'finally_failed', next_attempt_at: null, attempt_count: 7 });
          expect(detail.attempts.map((attempt) => (Date.parse(attempt.attempted_at) - start) / MINUTE)).toEqual(expectedMinutes);
          clock.advance(30 * 24 * 60 * MINUTE);
          expect(await dispatcher.runDue()).toBe(0);
          expect(receiver.requests).toHaveLength(7);
        });
      });

      it('a manual retry counts in the log, not in the schedule; a disabled webhook waits; sendTest is leased by its sender', async () => {
        const fixture = await create();
        let healthy = false;
        const receiver = new Receiver(() => (healthy ? 204 : 500));
        await withServer(receiver.listener, async (url) => {
          const clock = new FakeClock();
          const dispatcher = await dispatcherOn(fixture, { clock: clock.now });
          const { id } = await dispatcher.webhooks.create({ url, events: ['*'] });
          const start = clock.now();
          await dispatcher.emit(createTestEvent('payment.failed'));
          await dispatcher.runDue();
          const [delivery] = await dispatcher.deliveries.list();
          const { delivery: after } = await dispatcher.deliveries.retry(delivery!.id);
          expect(after).toMatchObject({ status: 'retrying', attempt_count: 2, automatic_attempt_count: 1, next_attempt_at: new Date(start + MINUTE).toISOString() });

          await dispatcher.webhooks.update(id, { status: 'disabled' });
          clock.advance(MINUTE);
          expect(await dispatcher.runDue()).toBe(0);
          await dispatcher.webhooks.update(id, { status: 'active' });
          healthy = true;
          expect(await dispatcher.runDue()).toBe(1);
          expect(await dispatcher.deliveries.get(delivery!.id)).toMatchObject({ status: 'delivered', attempt_count: 3, automatic_attempt_count: 2 });

          const test = await dispatcher.sendTest(id);
          expect(test).toMatchObject({ test: true, status: 'delivered', attempt_count: 1 });
          expect(await dispatcher.runDue()).toBe(0);
          expect(receiver.requests).toHaveLength(4);
        });
      });

      it('exports the log as JSON Lines that round-trip to deliveries.get', async () => {
        const fixture = await create();
        const receiver = new Receiver(() => 204);
        await withServer(receiver.listener, async (url) => {
          const dispatcher = await dispatcherOn(fixture);
          await dispatcher.webhooks.create({ url, events: ['*'] });
          for (const type of ['invoice.paid', 'uva.submitted', 'invoice.sent'] as const) await dispatcher.emit(createTestEvent(type));
          await dispatcher.runDue();
          const chunks: Buffer[] = [];
          const sink = new Writable({
            write(chunk: Buffer, _encoding, callback) {
              chunks.push(chunk);
              callback();
            },
          });
          expect(await dispatcher.deliveries.export(sink)).toBe(3);
          const lines = Buffer.concat(chunks).toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as ExportedAttempt);
          for (const { delivery_status: status, ...attempt } of lines) {
            const detail = await dispatcher.deliveries.get(attempt.delivery_id);
            expect(detail.status).toBe(status);
            expect(detail.attempts).toEqual([attempt]);
          }
        });
      });
    });

    describe('leases', () => {
      it('a delivery whose worker died mid-attempt is sent again after the lease, with the same attempt number', async () => {
        const fixture = await create();
        const receiver = new Receiver(() => 204);
        await withServer(receiver.listener, async (url) => {
          const clock = new FakeClock();
          const dispatcher = await dispatcherOn(fixture, { clock: clock.now });
          await dispatcher.webhooks.create({ url, events: ['*'] });
          await dispatcher.emit(createTestEvent('invoice.paid'));

          // A worker in another process leases the delivery and dies before it records anything.
          const crashed = closeWhenFinished(await fixture.open());
          const [job] = await crashed.claimDue({ now: clock.now(), limit: 1, lease: { owner: 'crashed', until: clock.now() + DELIVERY_TIMEOUT_MS + DISPATCH_LEASE_MARGIN_MS } });
          expect(job).toBeDefined();

          expect(await dispatcher.runDue()).toBe(0);
          clock.advance(DELIVERY_TIMEOUT_MS + DISPATCH_LEASE_MARGIN_MS - 1);
          expect(await dispatcher.runDue()).toBe(0);
          clock.advance(1);
          expect(await dispatcher.runDue()).toBe(1);
          const detail = await dispatcher.deliveries.get(job!.delivery.id);
          expect(detail).toMatchObject({ status: 'delivered', attempt_count: 1 });
          expect(detail.attempts.map((attempt) => attempt.attempt_number)).toEqual([1]);
        });
      });

      it('two Dispatchers on one database drain the same deliveries: every attempt is sent exactly once', async () => {
        const fixture = await create();
        const receiver = new Receiver(() => 204);
        await withServer(receiver.listener, async (url) => {
          // Slow start off: each may have its 8 in flight from the first claim (the cap is shared).
          const a = await dispatcherOn(fixture, { concurrency: 8, initialInFlightPerWebhook: 16 });
          const b = await dispatcherOn(fixture, { concurrency: 8, initialInFlightPerWebhook: 16 });
          await a.webhooks.create({ url, events: ['*'] });
          const emitted: string[] = [];
          for (let i = 0; i < 300; i++) emitted.push((await a.emit(createTestEvent('payment.received'))).id);

          const [byA, byB] = await Promise.all([a.runDue(), b.runDue()]);
          expect(byA + byB).toBe(300);
          expect(byA).toBeGreaterThan(0);
          expect(byB).toBeGreaterThan(0);
          expect(receiver.eventIds().sort()).toEqual([...emitted].sort());
          const delivered = await a.deliveries.list({ status: 'delivered', limit: 1000 });
          expect(delivered).toHaveLength(300);
          expect(delivered.every((delivery) => delivery.attempt_count === 1)).toBe(true);
        });
      });

      it('two running workers on one database send each event once', async () => {
        const fixture = await create();
        const receiver = new Receiver(() => 204);
        await withServer(receiver.listener, async (url) => {
          const a = await dispatcherOn(fixture, { concurrency: 5 });
          const b = await dispatcherOn(fixture, { concurrency: 5, pollIntervalMs: 10 });
          await a.webhooks.create({ url, events: ['*'] });
          await Promise.all([a.start(), b.start()]);
          for (let i = 0; i < 200; i++) await a.emit(createTestEvent('invoice.created'));
          await receiver.received(200);
          await Promise.all([a.stop(), b.stop()]);
          expect(new Set(receiver.eventIds()).size).toBe(200);
          expect(receiver.requests).toHaveLength(200);
        });
      });
    });

    describe('100 000 pending deliveries', () => {
      it('the worker reads them in batches of at most `concurrency`, never all at once', async () => {
        const fixture = await create();
        const receiver = new Receiver(() => 204);
        await withServer(receiver.listener, async (url) => {
          const inner = closeWhenFinished(await fixture.open());
          const clock = new FakeClock();
          // 20 000 due deliveries over 200 webhooks: far more than one claim may take.
          await seed(inner, { webhooks: 200, events: 100, url, now: clock.now() });

          const claims: { limit: number; got: number }[] = [];
          const storage: DispatchStore = new Proxy(inner, {
            get(target, property, receiverObject) {
              if (property === 'claimDue') {
                return async (request: Parameters<DispatchStore['claimDue']>[0]) => {
                  const jobs = await target.claimDue(request);
                  claims.push({ limit: request.limit, got: jobs.length });
                  return jobs;
                };
              }
              if (property === 'listDeliveries' || property === 'exportAttempts') {
                return () => Promise.reject(new Error(`the worker must not call ${property}`));
              }
              return Reflect.get(target, property, receiverObject) as unknown;
            },
          });
          const { dispatcher } = clockedDispatcher({ store: storage, concurrency: 10, allowedHosts: ['127.0.0.1'] });
          await dispatcher.start();
          await receiver.received(200);
          await dispatcher.stop();

          expect(claims.every((claim) => claim.limit <= 10 && claim.got <= claim.limit)).toBe(true);
          const claimed = claims.reduce((sum, claim) => sum + claim.got, 0);
          expect(claimed).toBe(receiver.requests.length); // nothing read that was not sent
          expect(await fixture.countDeliveries('delivered')).toBe(receiver.requests.length);
          expect(await fixture.countDeliveries('retrying')).toBe(20_000 - receiver.requests.length);
          await dispatcher.close();
        });
      });
    });
  });
}
