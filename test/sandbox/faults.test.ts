import { afterEach, describe, expect, it } from 'vitest';
import { sandboxWithReceiver, type DeliveryView } from './helpers.js';

/*
 * Fault injection per registration: the sandbox's proxy between its Dispatcher and the receiver
 * does what the platform may do, records each fault, and the deliveries view shows them.
 */

let setup: Awaited<ReturnType<typeof sandboxWithReceiver>>;
afterEach(() => setup.stop());

async function deliveriesOf(webhookId: string): Promise<DeliveryView[]> {
  const list = (await setup.call('GET', `/webhooks/${webhookId}/deliveries?order=asc`)).body.data as { id: string }[];
  return Promise.all(list.map(async (delivery) => (await setup.call('GET', `/webhooks/${webhookId}/deliveries/${delivery.id}`)).body.data as DeliveryView));
}

describe('deliver twice and out of order', () => {
  it('a receiver with the ordering guard ends with the newest customer; the log shows both faults', async () => {
    setup = await sandboxWithReceiver({}, { ordering: true });
    const { call, receiver, sandbox, webhookId } = setup;
    const faults = await call('PUT', `/sandbox/webhooks/${webhookId}/faults`, { duplicate: true, out_of_order: { window: 3, max_wait_ms: 30_000 } });
    expect(faults.status).toBe(200);

    const customer = (await call('POST', '/customers', { name: 'Huber' })).body.data;
    await call('PATCH', `/customers/${customer.id}`, { name: 'Huber & Söhne' });
    const newest = (await call('PATCH', `/customers/${customer.id}`, { name: 'Huber & Söhne GmbH' })).body.data;
    await sandbox.settle();

    // Newest first, each twice: what a receiver without the guard would get wrong.
    const arrived = receiver.raw.map((delivery) => (JSON.parse(delivery.body) as { type: string; data: { object: { name: string } } }).data.object.name);
    expect(arrived).toEqual(['Huber & Söhne GmbH', 'Huber & Söhne GmbH', 'Huber & Söhne', 'Huber & Söhne', 'Huber', 'Huber']);
    expect(receiver.seen.map((seen) => [seen.event.type, seen.stale])).toEqual([
      ['customer.updated', false],
      // The creation event always runs, flagged stale; the older update is skipped.
      ['customer.created', true],
    ]);
    expect(receiver.state.get(customer.id)).toEqual(newest);

    const deliveries = await deliveriesOf(webhookId);
    expect(deliveries.map((delivery) => delivery.attempts[0]!.faults.map((fault) => [fault.kind, fault.position ?? null]))).toEqual([
      [['reordered', 3], ['duplicated', null]],
      [['reordered', 2], ['duplicated', null]],
      [['reordered', 1], ['duplicated', null]],
    ]);
    expect(deliveries.every((delivery) => delivery.status === 'delivered' && delivery.attempts[0]!.url === receiver.url)).toBe(true);
  });
});

describe('drop the first attempts', () => {
  it('with the first 2 dropped, the third attempt is at the schedule 6-minute mark of the sandbox clock', async () => {
    setup = await sandboxWithReceiver({ faults: { drop_first_attempts: 2 } });
    const { call, receiver, sandbox, webhookId } = setup;
    await call('POST', '/customers', { name: 'Huber' });
    await sandbox.settle();
    const [first] = await deliveriesOf(webhookId);
    expect(first!.status).toBe('retrying');
    expect(receiver.raw).toEqual([]);

    await sandbox.advance('10m');
    const [delivery] = await deliveriesOf(webhookId);
    const start = Date.parse(delivery!.attempts[0]!.attempted_at);
    expect(delivery!.attempts.map((attempt) => (Date.parse(attempt.attempted_at) - start) / 60_000)).toEqual([0, 1, 6]);
    expect(delivery!.attempts.map((attempt) => attempt.response_status)).toEqual([503, 503, 200]);
    expect(delivery!.faults.map((fault) => [fault.kind, fault.attempt_number])).toEqual([
      ['dropped', 1],
      ['dropped', 2],
    ]);
    expect(delivery!.status).toBe('delivered');
    expect(receiver.types()).toEqual(['customer.created']);
  });
});

describe('answer timeout', () => {
  it('the receiver handles the first attempt, the Dispatcher sees no answer and retries; the receiver answers the retry as a duplicate', async () => {
    setup = await sandboxWithReceiver({ deliveryTimeoutMs: 300, faults: { timeout_first_attempts: 1 } });
    const { call, receiver, sandbox, webhookId } = setup;
    await call('POST', '/customers', { name: 'Huber' });
    await sandbox.settle();
    await sandbox.advance('1m');
    const [delivery] = await deliveriesOf(webhookId);
    expect(delivery!.attempts.map((attempt) => attempt.error_kind)).toEqual(['timeout', null]);
    expect(delivery!.attempts[0]!.faults).toEqual([expect.objectContaining({ kind: 'answer_withheld', receiver_status: 200 })]);
    expect(receiver.raw).toHaveLength(2);
    expect(receiver.types()).toEqual(['customer.created']);
  });
});

describe('delay', () => {
  it('holds each attempt before forwarding it and records the delay', async () => {
    setup = await sandboxWithReceiver({ faults: { delay_ms: 80 } });
    const { call, sandbox, webhookId } = setup;
    await call('POST', '/customers', { name: 'Huber' });
    await sandbox.settle();
    const [delivery] = await deliveriesOf(webhookId);
    expect(delivery!.attempts[0]!.faults).toEqual([expect.objectContaining({ kind: 'delayed', delay_ms: 80 })]);
    expect(delivery!.attempts[0]!.response_time_ms).toBeGreaterThanOrEqual(80);
  });
});

describe('setting faults', () => {
  it.each([
    [{ out_of_order: { window: 1 } }, 'out_of_order.window'],
    [{ drop_first_attempts: 8 }, 'drop_first_attempts'],
    [{ delay_ms: -1 }, 'delay_ms'],
    [{ sometimes: true }, 'sometimes'],
  ])('%j → 422 VALIDATION_ERROR on %s', async (body, field) => {
    setup = await sandboxWithReceiver();
    const answer = await setup.call('PUT', `/sandbox/webhooks/${setup.webhookId}/faults`, body);
    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  });

  it('replaces the whole set and reads it back; fields left out are off', async () => {
    setup = await sandboxWithReceiver({ faults: { duplicate: true } });
    const path = `/sandbox/webhooks/${setup.webhookId}/faults`;
    expect((await setup.call('GET', path)).body.data.duplicate).toBe(true);
    await setup.call('PUT', path, { drop_first_attempts: 1 });
    expect((await setup.call('GET', path)).body.data).toEqual({ duplicate: false, out_of_order: null, delay_ms: 0, timeout_first_attempts: 0, drop_first_attempts: 1 });
  });
});
