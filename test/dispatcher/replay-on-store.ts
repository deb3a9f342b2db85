import { describe, expect, it } from 'vitest';
import type { Dispatcher, DispatcherOptions, ReplayOptions } from '../../src/dispatcher.js';
import type { EventType } from '../../src/index.js';
import { createTestEvent } from '../../src/testing/index.js';
import { FakeClock } from '../helpers/clock.js';
import { withServer } from '../helpers/server.js';
import { closeWhenFinished, type ProjectDispatchFixture } from './dispatcher-on-store.js';
import { BUSINESS_ID, MINUTE, Receiver, testDispatcher } from './fixtures.js';

/*
 * webhooks.replay(id, { from, to, types }) on each DispatchStore, end to end: what it queues, what
 * it skips while the first replay is pending, and two replays of one range at once from two
 * stores on one database (two processes, as far as the database can tell) queueing each event once.
 */

async function dispatcherOn(fixture: ProjectDispatchFixture, options: DispatcherOptions): Promise<Dispatcher> {
  return testDispatcher({ store: closeWhenFinished(await fixture.open()), ...options });
}

/** Emits `type` for `business` at the clock's time, then moves the clock a minute on. */
async function emitAt(dispatcher: Dispatcher, clock: FakeClock, type: EventType, business = BUSINESS_ID): Promise<string> {
  const event = await dispatcher.emit(createTestEvent(type, { business_id: business }));
  clock.advance(MINUTE);
  return event.id;
}

/** Resolves when `count` callers have arrived: they then go on together. */
function barrier(count: number): () => Promise<void> {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return () => {
    if (++arrived === count) open();
    return opened;
  };
}

export function describeReplayOnStore(name: string, create: () => Promise<ProjectDispatchFixture> | ProjectDispatchFixture): void {
  describe(`${name}: webhooks.replay by time range`, () => {
    it('queues the business\'s subscribed events of [from, to) once more, marked replay; again only once they are over', async () => {
      const fixture = await create();
      const receiver = new Receiver(() => 204);
      await withServer(receiver.listener, async (url) => {
        const clock = new FakeClock();
        const dispatcher = await dispatcherOn(fixture, { clock: clock.now });
        const { id } = await dispatcher.webhooks.create({ business_id: BUSINESS_ID, url, events: ['invoice.*'] });
        await dispatcher.webhooks.create({ business_id: 'biz_other', url, events: ['*'] });
        const from = clock.now();
        const paid = await emitAt(dispatcher, clock, 'invoice.paid');
        const sent = await emitAt(dispatcher, clock, 'invoice.sent');
        await emitAt(dispatcher, clock, 'customer.created'); // not subscribed
        await emitAt(dispatcher, clock, 'invoice.paid', 'biz_other'); // another business
        const to = clock.now();
        await emitAt(dispatcher, clock, 'invoice.created'); // after the range
        expect(await dispatcher.runDue()).toBe(4);
        receiver.requests.length = 0;

        expect(await dispatcher.webhooks.replay(id, { from: new Date(from).toISOString(), to })).toEqual({ matched: 2, queued: 2, skipped: 0, payload_removed: 0 });
        const replays = await dispatcher.deliveries.list({ webhook_id: id, status: 'retrying' });
        expect(replays.map((delivery) => [delivery.event_id, delivery.replay]).sort()).toEqual([[paid, true], [sent, true]].sort());
        // The first replay still pending: the same range again queues nothing.
        expect(await dispatcher.webhooks.replay(id, { from, to })).toEqual({ matched: 2, queued: 0, skipped: 2, payload_removed: 0 });

        expect(await dispatcher.runDue()).toBe(2);
        expect(receiver.eventIds()).toEqual([paid, sent]);
        const firsts = await dispatcher.deliveries.list({ webhook_id: id, status: 'delivered' });
        expect(firsts.filter((delivery) => !delivery.replay)).toHaveLength(3);
        expect(firsts.filter((delivery) => delivery.replay)).toHaveLength(2);

        // Over: a replay queues them again; `types` narrows what the registration subscribes to.
        expect(await dispatcher.webhooks.replay(id, { from, to, types: ['invoice.sent', 'customer.created'] })).toEqual({ matched: 1, queued: 1, skipped: 0, payload_removed: 0 });
        expect(await dispatcher.webhooks.replay(id, { from, to, types: 'customer.*' })).toEqual({ matched: 0, queued: 0, skipped: 0, payload_removed: 0 });
      });
    });

    it('skips an event whose first delivery is still retrying, and waits with a disabled registration', async () => {
      const fixture = await create();
      let status = 500;
      const receiver = new Receiver(() => status);
      await withServer(receiver.listener, async (url) => {
        const clock = new FakeClock();
        const dispatcher = await dispatcherOn(fixture, { clock: clock.now });
        const { id } = await dispatcher.webhooks.create({ business_id: BUSINESS_ID, url, events: ['*'] });
        const from = clock.now();
        await emitAt(dispatcher, clock, 'payment.received');
        await emitAt(dispatcher, clock, 'payment.failed');
        await dispatcher.runDue();
        expect(await dispatcher.webhooks.replay(id, { from })).toMatchObject({ matched: 2, queued: 0, skipped: 2 });

        status = 204;
        clock.advance(MINUTE);
        expect(await dispatcher.runDue()).toBe(2);
        await dispatcher.webhooks.update(id, { status: 'disabled' });
        expect(await dispatcher.webhooks.replay(id, { from })).toMatchObject({ queued: 2 });
        expect(await dispatcher.runDue()).toBe(0);
        await dispatcher.webhooks.enable(id);
        expect(await dispatcher.runDue()).toBe(2);
      });
    });

    it('two replays of one range at once, from two stores on one database, queue each event once', async () => {
      const fixture = await create();
      const receiver = new Receiver(() => 204);
      await withServer(receiver.listener, async (url) => {
        const clock = new FakeClock();
        const first = await dispatcherOn(fixture, { clock: clock.now });
        const second = await dispatcherOn(fixture, { clock: clock.now });
        const { id } = await first.webhooks.create({ business_id: BUSINESS_ID, url, events: ['*'] });
        const from = clock.now();
        for (let i = 0; i < 40; i++) await emitAt(first, clock, i % 2 === 0 ? 'invoice.paid' : 'uva.submitted');
        while ((await first.runDue()) > 0);
        for (let round = 0; round < 3; round++) {
          const together = barrier(4);
          const results = await Promise.all(
            [first, second, first, second].map(async (dispatcher) => {
              await together();
              return dispatcher.webhooks.replay(id, { from });
            }),
          );
          expect(results.reduce((sum, result) => sum + result.queued, 0)).toBe(40);
          expect(results.every((result) => result.queued + result.skipped === 40)).toBe(true);
          expect(await first.deliveries.count({ webhook_id: id, status: 'retrying' })).toBe(40);
          while ((await second.runDue()) > 0);
        }
        expect(receiver.requests).toHaveLength(40 * 4);
      });
    }, 30_000);

    it('refuses what it cannot do, with its code', async () => {
      const fixture = await create();
      const clock = new FakeClock();
      const dispatcher = await dispatcherOn(fixture, { clock: clock.now });
      const { id } = await dispatcher.webhooks.create({ business_id: BUSINESS_ID, url: 'http://127.0.0.1:9/hooks', events: ['*'] });
      const platform = await dispatcher.webhooks.create({ scope: 'platform', url: 'http://127.0.0.1:9/audit', events: ['*'] });
      const now = clock.now();
      const refusal = (promise: Promise<unknown>) => promise.then(() => undefined, (error: { code: string; details: Record<string, unknown> }) => ({ code: error.code, field: error.details['field'] }));
      expect(await refusal(dispatcher.webhooks.replay('wh_missing', { from: now - MINUTE }))).toEqual({ code: 'NOT_FOUND', field: undefined });
      expect(await refusal(dispatcher.webhooks.replay(id, {} as never))).toEqual({ code: 'VALIDATION_ERROR', field: 'from' });
      expect(await refusal(dispatcher.webhooks.replay(id, { from: now - MINUTE, since: now } as never))).toEqual({ code: 'VALIDATION_ERROR', field: 'since' });
      expect(await refusal(dispatcher.webhooks.replay(id, { from: 'yesterday' }))).toEqual({ code: 'VALIDATION_ERROR', field: 'from' });
      expect(await refusal(dispatcher.webhooks.replay(id, { from: now, to: now - 1 }))).toEqual({ code: 'VALIDATION_ERROR', field: 'to' });
      expect(await refusal(dispatcher.webhooks.replay(id, JSON.parse(`{"from": ${now - MINUTE}, "types": ["invoice.nope"]}`) as ReplayOptions))).toEqual({ code: 'VALIDATION_ERROR', field: 'types' });
      expect(await refusal(dispatcher.webhooks.replay(id, { from: now - MINUTE, business_id: 'biz_other' }))).toEqual({ code: 'VALIDATION_ERROR', field: 'business_id' });
      expect(await refusal(dispatcher.webhooks.replay(platform.id, { from: now - MINUTE }))).toEqual({ code: 'VALIDATION_ERROR', field: 'business_id' });
      expect(await refusal(dispatcher.webhooks.replay(id, { from: now - 400 * 24 * 60 * MINUTE }))).toEqual({ code: 'EVENTS_EXPIRED', field: 'from' });
      expect(await dispatcher.webhooks.replay(platform.id, { from: now - MINUTE, business_id: BUSINESS_ID })).toEqual({ matched: 0, queued: 0, skipped: 0, payload_removed: 0 });
    });
  });
}
