import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver, memoryStore, sqliteStore, Webhooks, type EventType, type IdempotencyStore, type Receiver, type ReceiveOutcome, type ReceiverOptions } from '../../src/index.js';
import { createTestEvent, signedRequest } from '../../src/testing/index.js';
import { HeldCalls } from '../helpers/gates.js';

const SECRET = 'whsec_orderingGuardSecret00000000000';
const T0 = Date.UTC(2026, 10, 2, 9, 0, 0);

/** An event of invoice `inv_1` (or `objectId`) created `offsetMs` after T0. */
function invoiceEvent(type: EventType, offsetMs: number, objectId = 'inv_1') {
  return createTestEvent(type, { created: new Date(T0 + offsetMs).toISOString(), data: { object: { id: objectId } } });
}

describe('the ordering guard', () => {
  const receivers: Receiver[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });

  function guarded(options: Partial<ReceiverOptions> = {}) {
    const seen: { type: string; stale: boolean }[] = [];
    const outcomes: ReceiveOutcome[] = [];
    const receiver = createReceiver({
      secret: SECRET,
      handlers: new Webhooks().onAny((event, context) => void seen.push({ type: event.type, stale: context.stale })),
      store: memoryStore(),
      logger: false,
      ordering: true,
      onOutcome: (outcome) => void outcomes.push(outcome),
      ...options,
    });
    receivers.push(receiver);
    const deliver = (event: object) => {
      const { body, headers } = signedRequest(event, SECRET);
      return receiver.receive({ rawBody: body, headers, method: 'POST' });
    };
    return { receiver, seen, outcomes, deliver };
  }

  it('skips an update older than what was handled: 200 stale: true, no handler, and its redelivery is a duplicate', async () => {
    const { seen, outcomes, deliver } = guarded();
    expect(await deliver(invoiceEvent('invoice.paid', 2_000))).toMatchObject({ status: 200, body: { duplicate: false } });
    const lateSent = invoiceEvent('invoice.sent', 1_000);
    expect(await deliver(lateSent)).toMatchObject({ status: 200, body: { stale: true, duplicate: false } });
    expect(seen).toEqual([{ type: 'invoice.paid', stale: false }]);
    expect(outcomes.map((outcome) => [outcome.outcome, outcome.stale ?? false])).toEqual([
      ['handled', false],
      ['stale', true],
    ]);
    expect(await deliver(lateSent)).toMatchObject({ status: 200, body: { duplicate: true } });
    expect(seen).toHaveLength(1);
  });

  it('always runs a late creation event, with context.stale set, so its side effects are not lost', async () => {
    const { seen, deliver } = guarded();
    await deliver(invoiceEvent('invoice.sent', 2_000));
    expect(await deliver(invoiceEvent('invoice.created', 1_000))).toMatchObject({ status: 200, body: { stale: true } });
    expect(seen).toEqual([
      { type: 'invoice.sent', stale: false },
      { type: 'invoice.created', stale: true },
    ]);
  });

  it("runs every stale event with context.stale with onStale: 'run'", async () => {
    const { seen, deliver } = guarded({ ordering: { onStale: 'run' } });
    await deliver(invoiceEvent('invoice.paid', 2_000));
    await deliver(invoiceEvent('invoice.sent', 1_000));
    expect(seen).toEqual([
      { type: 'invoice.paid', stale: false },
      { type: 'invoice.sent', stale: true },
    ]);
  });

  it("breaks a tie of `created` by the type's stage in its object's life, then by event id", async () => {
    const { seen, deliver } = guarded();
    await deliver(invoiceEvent('invoice.paid', 0));
    await deliver(invoiceEvent('invoice.overdue', 0));
    await deliver(invoiceEvent('invoice.sent', 0));
    expect(seen).toEqual([{ type: 'invoice.paid', stale: false }]);

    // A renewal can come before a cancellation: the catalog's order of types is not the stage.
    const subscription = guarded();
    await subscription.deliver(invoiceEvent('subscription.cancelled', 0, 'sub_1'));
    expect(await subscription.deliver(invoiceEvent('subscription.renewed', 0, 'sub_1'))).toMatchObject({ body: { stale: true } });

    const second = guarded();
    const [a, b] = [
      { ...invoiceEvent('customer.updated', 0, 'cus_1'), id: 'evt_a' },
      { ...invoiceEvent('customer.updated', 0, 'cus_1'), id: 'evt_b' },
    ];
    await second.deliver(b);
    expect(await second.deliver(a)).toMatchObject({ body: { stale: true } });
  });

  it('orders each object on its own, and an event at the same place (its own redelivery after a release) is not stale', async () => {
    const { seen, deliver } = guarded();
    await deliver(invoiceEvent('invoice.paid', 2_000, 'inv_1'));
    await deliver(invoiceEvent('invoice.sent', 1_000, 'inv_2'));
    expect(seen.map((entry) => entry.stale)).toEqual([false, false]);
  });

  it('takes a key function, and leaves out events it returns null for', async () => {
    const byCustomer = guarded({ ordering: { key: (event) => (event.type.startsWith('invoice.') ? `customer:${(event.data.object as { customer_id: string }).customer_id}` : null) } });
    await byCustomer.deliver(createTestEvent('invoice.paid', { created: new Date(T0 + 5_000).toISOString(), data: { object: { id: 'inv_1', customer_id: 'cus_9' } } }));
    expect(await byCustomer.deliver(createTestEvent('invoice.sent', { created: new Date(T0).toISOString(), data: { object: { id: 'inv_2', customer_id: 'cus_9' } } }))).toMatchObject({
      body: { stale: true },
    });
    await byCustomer.deliver(createTestEvent('customer.updated', { created: new Date(T0 + 9_000).toISOString() }));
    expect(await byCustomer.deliver(createTestEvent('customer.updated', { created: new Date(T0).toISOString() }))).not.toMatchObject({ body: { stale: true } });
  });

  it("in inbox mode runs one object's present events one at a time, in created order, whatever order they arrived in", async () => {
    const store: IdempotencyStore = memoryStore();
    const stopped = createReceiver({ secret: SECRET, store, logger: false, ordering: true, inbox: true });
    await stopped.close();
    const deliver = (event: object) => {
      const { body, headers } = signedRequest(event, SECRET);
      return stopped.receive({ rawBody: body, headers, method: 'POST' });
    };
    for (const [type, offset] of [
      ['invoice.paid', 3_000],
      ['invoice.created', 1_000],
      ['invoice.sent', 2_000],
    ] as const) {
      expect(await deliver(invoiceEvent(type, offset))).toMatchObject({ status: 200, body: { queued: true } });
    }
    const calls = new HeldCalls<string>();
    const receiver = createReceiver({
      secret: SECRET,
      store,
      logger: false,
      ordering: true,
      inbox: { pollIntervalMs: 5, concurrency: 5 },
      handlers: new Webhooks().onAny((event) => calls.hold(event.type)),
    });
    receivers.push(receiver);
    // Free slots, and still one event of the object at a time: each is held until the test lets
    // it go, and the next starts only then.
    for (let index = 0; index < 3; index++) {
      await calls.arrived(index + 1);
      expect(await receiver.inbox.stats()).toMatchObject({ processing: 1, pending: 2 - index, done: index });
      calls.release(index);
    }
    await receiver.inbox.drain();
    expect(calls.values).toEqual(['invoice.created', 'invoice.sent', 'invoice.paid']);
    expect(calls.most).toBe(1);
  });

  it.each([
    ['memoryStore', () => memoryStore()],
    ['sqliteStore', () => sqliteStore(':memory:')],
  ])('in inbox mode marks a late update done and stale without running it (%s)', async (_name, store) => {
    const seen: string[] = [];
    const receiver = createReceiver({
      secret: SECRET,
      store: store(),
      logger: false,
      ordering: true,
      inbox: { pollIntervalMs: 5 },
      handlers: new Webhooks().onAny((event) => void seen.push(event.type)),
    });
    receivers.push(receiver);
    const deliver = (event: object) => {
      const { body, headers } = signedRequest(event, SECRET);
      return receiver.receive({ rawBody: body, headers, method: 'POST' });
    };
    await deliver(invoiceEvent('invoice.paid', 2_000));
    await receiver.inbox.drain();
    const late = invoiceEvent('invoice.sent', 1_000);
    await deliver(late);
    await receiver.inbox.drain();
    expect(seen).toEqual(['invoice.paid']);
    expect(await receiver.inbox.get(late.id)).toMatchObject({ status: 'done', stale: true, ordering_key: 'invoice:inv_1' });
    // The run that was not stale is recorded so (its completion leaves the column as stored).
    expect(await receiver.inbox.list({ status: 'done' })).toEqual(
      expect.arrayContaining([expect.objectContaining({ event_type: 'invoice.paid', stale: false }), expect.objectContaining({ event_id: late.id, stale: true })]),
    );
  });
});
