import { describe, expect, it } from 'vitest';
import { WebhookValidationError } from '../../src/index.js';
import { DispatcherError } from '../../src/dispatcher.js';
import { EVENT_CATALOG, EVENT_TYPES, type EventType } from '../../src/events/catalog.js';
import { parseEvent } from '../../src/events/parse.js';
import { createTestEvent } from '../../src/testing/index.js';
import { withServer } from '../helpers/server.js';
import { BUSINESS_ID, clockedDispatcher, MINUTE, Receiver, testDispatcher } from './fixtures.js';

const invoice = EVENT_CATALOG['invoice.paid'].sample;

describe('emit(type, object, options)', () => {
  it('builds the envelope: evt_ id, created from the clock, api_version YYYY-MM, a cor_ id when none is given', async () => {
    const { dispatcher, clock } = clockedDispatcher();
    const event = await dispatcher.emit('invoice.paid', invoice, {
      business_id: BUSINESS_ID,
      previous_attributes: { status: 'sent', paid_at: null },
    });
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_[\w-]{22}$/) as string,
      type: 'invoice.paid',
      created: new Date(clock.now()).toISOString(),
      api_version: expect.stringMatching(/^\d{4}-(0[1-9]|1[0-2])$/) as string,
      data: { object: invoice, previous_attributes: { status: 'sent', paid_at: null } },
      business_id: BUSINESS_ID,
      correlation_id: expect.stringMatching(/^cor_/) as string,
    });
    const given = await dispatcher.emit('invoice.paid', invoice, { business_id: BUSINESS_ID, correlation_id: 'cor_mine' });
    expect(given.correlation_id).toBe('cor_mine');
    expect(given.data).not.toHaveProperty('previous_attributes');
  });

  it('validates with the receiver schemas and stores nothing for an invalid event', async () => {
    const dispatcher = testDispatcher();
    await dispatcher.webhooks.create({ url: 'http://127.0.0.1:9/', events: ['*'] });
    const cases: [() => Promise<unknown>, string, string][] = [
      [() => dispatcher.emit('invoice.paid', { ...invoice, amount: 12.5 }, { business_id: BUSINESS_ID }), 'VALIDATION_ERROR', 'data.object.amount'],
      [() => dispatcher.emit('invoice.paid', { ...invoice, status: 'sent' } as never, { business_id: BUSINESS_ID }), 'VALIDATION_ERROR', 'data.object.status'],
      [() => dispatcher.emit('invoice.paid', invoice, {} as never), 'VALIDATION_ERROR', 'business_id'],
      [() => dispatcher.emit('invoice.payed' as EventType, invoice as never, { business_id: BUSINESS_ID }), 'UNKNOWN_EVENT_TYPE', 'type'],
      [() => dispatcher.emit({ ...createTestEvent('invoice.paid'), api_version: '2026-13' }), 'VALIDATION_ERROR', 'api_version'],
      [() => dispatcher.emit(undefined as never), 'VALIDATION_ERROR', ''],
      [() => dispatcher.emit({ ...createTestEvent('invoice.paid'), extra: 10n } as never), 'VALIDATION_ERROR', ''],
    ];
    for (const [emit, code, field] of cases) {
      const error = await emit().then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(WebhookValidationError);
      expect(error).toMatchObject({ code, details: { field } });
    }
    expect(await dispatcher.deliveries.list()).toEqual([]);
  });

  it('accepts a ready envelope and sends exactly its JSON', async () => {
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      const dispatcher = testDispatcher();
      await dispatcher.webhooks.create({ url, events: ['*'] });
      const envelope = { ...createTestEvent('subscription.renewed'), future_field: { kept: true } };
      const event = await dispatcher.emit(envelope);
      expect(event).toEqual(envelope);
      await dispatcher.runDue();
      expect(receiver.requests[0]!.body).toBe(JSON.stringify(envelope));
    });
  });

  it('stores an event once: emitting the same id again sends nothing new; a different event under it is refused', async () => {
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      const { dispatcher, clock } = clockedDispatcher();
      await dispatcher.webhooks.create({ url, events: ['*'] });
      const first = await dispatcher.emit('invoice.paid', invoice, { business_id: BUSINESS_ID, id: 'evt_outbox_1', correlation_id: 'cor_1' });
      clock.advance(MINUTE);
      const again = await dispatcher.emit('invoice.paid', invoice, { business_id: BUSINESS_ID, id: 'evt_outbox_1', correlation_id: 'cor_1' });
      expect(again).toEqual(first);
      const conflict = await dispatcher
        .emit('invoice.paid', { ...invoice, amount: 1 }, { business_id: BUSINESS_ID, id: 'evt_outbox_1', correlation_id: 'cor_1' })
        .catch((error: unknown) => error);
      expect(conflict).toBeInstanceOf(DispatcherError);
      expect(conflict).toMatchObject({ code: 'EVENT_ID_CONFLICT', details: { field: 'id', event_id: 'evt_outbox_1' } });
      await dispatcher.runDue();
      expect(receiver.eventIds()).toEqual(['evt_outbox_1']);
    });
  });

  it('keeps an event without subscribers and queues nothing for it', async () => {
    const dispatcher = testDispatcher();
    await dispatcher.webhooks.create({ url: 'http://127.0.0.1:9/', events: ['uva.*'] });
    await dispatcher.emit(createTestEvent('invoice.paid'));
    expect(await dispatcher.deliveries.list()).toEqual([]);
    expect(await dispatcher.runDue()).toBe(0);
  });
});

describe('fan-out', () => {
  it('two webhooks with different event sets get exactly the events they subscribed to, with the same bytes', async () => {
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      const dispatcher = testDispatcher();
      await dispatcher.webhooks.create({ url: `${url}/a`, events: ['invoice.*'] });
      await dispatcher.webhooks.create({ url: `${url}/b`, events: ['payment.received', 'customer.*'] });
      const disabled = await dispatcher.webhooks.create({ url: `${url}/c`, events: ['*'] });
      await dispatcher.webhooks.update(disabled.id, { status: 'disabled' });

      for (const type of EVENT_TYPES) await dispatcher.emit(createTestEvent(type));
      await dispatcher.runDue();

      const typesAt = (path: string) =>
        receiver.requests.filter((request) => request.path === path).map((request) => (JSON.parse(request.body) as { type: string }).type).sort();
      expect(typesAt('/a')).toEqual(['invoice.cancelled', 'invoice.created', 'invoice.overdue', 'invoice.paid', 'invoice.sent']);
      expect(typesAt('/b')).toEqual(['customer.created', 'customer.deleted', 'customer.updated', 'payment.received']);
      expect(typesAt('/c')).toEqual([]);
      expect(receiver.requests).toHaveLength(9);

      const bodies = (type: string) => receiver.requests.filter((request) => request.body.includes(`"type":"${type}"`)).map((request) => request.body);
      expect(new Set(bodies('invoice.paid')).size).toBe(1);
    });
  });
});

describe('sendTest', () => {
  it('sends a sample of the first subscribed type to that webhook only, now, marked as a test', async () => {
    const receiver = new Receiver(() => 200);
    await withServer(receiver.listener, async (url) => {
      const dispatcher = testDispatcher();
      const target = await dispatcher.webhooks.create({ url: `${url}/target`, events: ['payment.*'] });
      await dispatcher.webhooks.create({ url: `${url}/other`, events: ['*'] });

      const detail = await dispatcher.sendTest(target.id);
      expect(detail).toMatchObject({ webhook_id: target.id, status: 'delivered', test: true, event_type: 'payment.received', attempt_count: 1 });
      expect(detail.attempts[0]).toMatchObject({ test: true, manual: false, response_status: 200, attempt_number: 1 });
      expect(receiver.requests.map((request) => request.path)).toEqual(['/target']);
      const event = parseEvent(receiver.requests[0]!.body);
      expect(event.type).toBe('payment.received');
      expect(event.id).toMatch(/^evt_test_/);
      // Sent already: the worker has nothing left to do.
      expect(await dispatcher.runDue()).toBe(0);
    });
  });

  it('also sends to a disabled webhook (to check it before enabling it)', async () => {
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      const dispatcher = testDispatcher();
      const target = await dispatcher.webhooks.create({ url, events: ['uva.*'], status: 'disabled' });
      expect(await dispatcher.sendTest(target.id)).toMatchObject({ status: 'delivered', event_type: 'uva.submitted' });
      expect(receiver.requests).toHaveLength(1);
    });
  });

  it('a failed test delivery is retried on the schedule', async () => {
    const receiver = new Receiver(() => 500);
    await withServer(receiver.listener, async (url) => {
      const { dispatcher, clock } = clockedDispatcher();
      const target = await dispatcher.webhooks.create({ url, events: ['*'] });
      const detail = await dispatcher.sendTest(target.id);
      expect(detail).toMatchObject({ status: 'retrying', next_attempt_at: new Date(clock.now() + MINUTE).toISOString(), event_type: 'invoice.created' });
      clock.advance(MINUTE);
      expect(await dispatcher.runDue()).toBe(1);
      const [retry] = (await dispatcher.deliveries.get(detail.id)).attempts.slice(1);
      expect(retry).toMatchObject({ test: true, attempt_number: 2 });
    });
  });
});
