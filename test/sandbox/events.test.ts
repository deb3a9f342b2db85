import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { EVENT_TYPES, type EventType } from '../../src/events/catalog.js';
import type { WebhookEvent } from '../../src/events/schemas.js';
import { sandboxWithReceiver, type Json } from './helpers.js';

/*
 * End to end over HTTP: the sandbox's API, its Dispatcher, and a receiver built from the package
 * (signature verified with the secret the API returned, payload parsed by the package's schemas,
 * deduplicated). Every one of the 18 types comes from a documented request or a clock advance.
 */

let setup: Awaited<ReturnType<typeof sandboxWithReceiver>>;
beforeAll(async () => {
  setup = await sandboxWithReceiver();
});
afterAll(() => setup.stop());

/** Makes the request, waits for its deliveries, and returns the events it produced. */
async function produce(method: string, path: string, body?: unknown): Promise<{ data: Json; events: WebhookEvent[] }> {
  const before = setup.receiver.seen.length;
  const answer = await setup.call(method, path, body);
  expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
  await setup.sandbox.settle();
  return { data: answer.body?.data, events: setup.receiver.seen.slice(before).map((seen) => seen.event) };
}

async function advance(duration: string): Promise<WebhookEvent[]> {
  return (await produce('POST', '/sandbox/clock', { advance: duration })).events;
}

const typesOf = (events: WebhookEvent[]): EventType[] => events.map((event) => event.type);

describe('the document transition: a sent invoice that receives a payment becomes paid', () => {
  let customerId: string;
  let invoiceId: string;
  let transactionId: string;

  it('customer.created', async () => {
    const { data, events } = await produce('POST', '/customers', { name: 'Bäckerei Huber GmbH', email: 'office@huber.example' });
    customerId = data.id;
    expect(typesOf(events)).toEqual(['customer.created']);
    expect(events[0]!.data.object).toEqual(data);
  });

  it('invoice.created (a draft)', async () => {
    const { data, events } = await produce('POST', '/invoices', { customer_id: customerId, amount: 11900, currency: 'EUR' });
    invoiceId = data.id;
    expect(typesOf(events)).toEqual(['invoice.created']);
    expect(events[0]!.data.object).toMatchObject({ id: invoiceId, customer_id: customerId, amount: 11900, net_amount: 9917, vat_amount: 1983, status: 'draft' });
  });

  it('invoice.sent', async () => {
    const { events } = await produce('POST', `/invoices/${invoiceId}/send`);
    expect(typesOf(events)).toEqual(['invoice.sent']);
    expect(events[0]!.data.previous_attributes).toEqual({ status: 'draft', sent_at: null });
  });

  it('a transaction paying it in full → payment.received and invoice.paid with previous_attributes.status = sent and paid_at', async () => {
    const { data, events } = await produce('POST', '/transactions', { invoice_id: invoiceId, amount: 11900, currency: 'EUR' });
    transactionId = data.id;
    // Both come from this one request; deliveries run concurrently, so either may arrive first.
    expect(typesOf(events).sort()).toEqual(['invoice.paid', 'payment.received']);
    const paid = events.find((event) => event.type === 'invoice.paid')!;
    if (paid.type !== 'invoice.paid') throw new Error('not invoice.paid');
    expectTypeOf(paid.data.object.paid_at).toEqualTypeOf<string>();
    expect(paid.data.previous_attributes).toEqual({ status: 'sent', paid_at: null });
    expect(paid.data.object).toMatchObject({ id: invoiceId, status: 'paid', paid_at: paid.created });
    expect((await setup.call('GET', `/invoices/${invoiceId}`)).body.data.status).toBe('paid');
  });

  it('payment.refunded: reversing the transaction', async () => {
    const { events } = await produce('POST', `/transactions/${transactionId}/reverse`);
    expect(typesOf(events)).toEqual(['payment.refunded']);
    expect(events[0]!.data.object).toMatchObject({ id: transactionId, status: 'refunded', refunded_amount: 11900 });
    expect(events[0]!.data.previous_attributes).toEqual({ status: 'succeeded', refunded_amount: 0 });
  });
});

describe('the other types, from documented requests and clock advances', () => {
  let customerId: string;

  beforeAll(async () => {
    customerId = (await produce('POST', '/customers', { name: 'Tischlerei Gruber KG', uid_number: 'ATU13585627' })).data.id;
  });

  it('customer.updated carries the earlier values of what changed', async () => {
    const { events } = await produce('PATCH', `/customers/${customerId}`, { email: 'rechnung@gruber.example' });
    expect(typesOf(events)).toEqual(['customer.updated']);
    expect(events[0]!.data.previous_attributes).toEqual({ email: null });
  });

  it('invoice.overdue: the day after the due date, by advancing the clock', async () => {
    const invoice = (await produce('POST', '/invoices', { customer_id: customerId, amount: 5000, currency: 'EUR' })).data;
    await produce('POST', `/invoices/${invoice.id}/send`);
    expect(typesOf(await advance('14d'))).toEqual([]);
    const events = await advance('1d');
    expect(typesOf(events)).toEqual(['invoice.overdue']);
    // At the start of the day after the due date, not at the end of the advance.
    expect(events[0]!.created).toBe(new Date(Date.parse(invoice.due_date) + 86_400_000).toISOString());
    expect(events[0]!.data.previous_attributes).toEqual({ status: 'sent' });
  });

  it('invoice.cancelled: DELETE cancels', async () => {
    const invoice = (await produce('POST', '/invoices', { customer_id: customerId, amount: 2000, currency: 'EUR' })).data;
    const { data, events } = await produce('DELETE', `/invoices/${invoice.id}`);
    expect(data.status).toBe('cancelled');
    expect(typesOf(events)).toEqual(['invoice.cancelled']);
    expect(events[0]!.data.previous_attributes).toEqual({ status: 'draft', cancelled_at: null });
  });

  it('payment.failed: a pending direct debit failed through the sandbox helper', async () => {
    const pending = await produce('POST', '/transactions', { customer_id: customerId, amount: 4900, currency: 'EUR', status: 'pending' });
    expect(typesOf(pending.events)).toEqual([]);
    const { events } = await produce('POST', `/sandbox/transactions/${pending.data.id}/fail`, { code: 'insufficient_funds' });
    expect(typesOf(events)).toEqual(['payment.failed']);
    expect(events[0]!.data.object).toMatchObject({ status: 'failed', failure: { code: 'insufficient_funds' } });
  });

  it('subscription.created, .updated, .renewed (by the clock) and .cancelled', async () => {
    const created = await produce('POST', '/sandbox/subscriptions', { customer_id: customerId, plan: 'pro' });
    expect(typesOf(created.events)).toEqual(['subscription.created']);
    const updated = await produce('PATCH', `/sandbox/subscriptions/${created.data.id}`, { plan: 'business' });
    expect(updated.events[0]!.data.previous_attributes).toEqual({ plan: 'pro', amount: 4900 });
    const renewed = await advance('31d');
    expect(typesOf(renewed)).toEqual(['subscription.renewed']);
    expect(renewed[0]!.data.previous_attributes).toEqual({ current_period_start: created.data.current_period_start, current_period_end: created.data.current_period_end });
    const cancelled = await produce('DELETE', `/sandbox/subscriptions/${created.data.id}`);
    expect(typesOf(cancelled.events)).toEqual(['subscription.cancelled']);
  });

  it('uva.submitted, uva.confirmed and uva.rejected: the VAT return helpers', async () => {
    const period = new Date(setup.sandbox.now()).toISOString().slice(0, 7);
    const first = (await produce('POST', '/sandbox/uva', { period })).data;
    expect(typesOf((await produce('POST', `/sandbox/uva/${first.id}/submit`)).events)).toEqual(['uva.submitted']);
    expect(typesOf((await produce('POST', `/sandbox/uva/${first.id}/confirm`)).events)).toEqual(['uva.confirmed']);
    const second = (await produce('POST', '/sandbox/uva', { period })).data;
    await produce('POST', `/sandbox/uva/${second.id}/submit`);
    const rejected = await produce('POST', `/sandbox/uva/${second.id}/reject`);
    expect(typesOf(rejected.events)).toEqual(['uva.rejected']);
    expect(rejected.events[0]!.data.object).toMatchObject({ status: 'rejected', rejection: { code: expect.any(String) } });
  });

  it('customer.deleted: DELETE archives', async () => {
    const { events } = await produce('DELETE', `/customers/${customerId}`);
    expect(typesOf(events)).toEqual(['customer.deleted']);
    expect(events[0]!.data.object).toMatchObject({ status: 'archived' });
  });

  it('the receiver got all 18 types, each verified and parsed once', () => {
    expect(new Set(setup.receiver.types())).toEqual(new Set(EVENT_TYPES));
    const ids = setup.receiver.seen.map((seen) => seen.event.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
