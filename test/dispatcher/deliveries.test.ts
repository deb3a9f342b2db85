import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { RateLimitError, type DeliveryExportFilter, type Dispatcher, type ExportedAttempt } from '../../src/dispatcher.js';
import { MANUAL_RETRY_LIMIT } from '../../src/dispatcher/dispatcher-defaults.js';
import { createTestEvent } from '../../src/testing/index.js';
import { withServer } from '../helpers/server.js';
import { clockedDispatcher, MINUTE, Receiver, testDispatcher } from './fixtures.js';

async function exportLines(dispatcher: Dispatcher, filter: DeliveryExportFilter = {}): Promise<{ text: string; count: number }> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      callback();
    },
  });
  const count = await dispatcher.deliveries.export(sink, filter);
  return { text: Buffer.concat(chunks).toString('utf8'), count };
}

describe('deliveries.list and get', () => {
  it('filters by the record\'s fields — status, event type or group, webhook, event, creation time — newest first', async () => {
    const receiver = new Receiver((request) => (request.path === '/fail' ? 500 : 204));
    await withServer(receiver.listener, async (url) => {
      const { dispatcher, clock } = clockedDispatcher();
      const ok = await dispatcher.webhooks.create({ url: `${url}/ok`, events: ['*'] });
      const failing = await dispatcher.webhooks.create({ url: `${url}/fail`, events: ['invoice.*'] });
      const t0 = clock.now();
      const invoice = await dispatcher.emit(createTestEvent('invoice.paid'));
      clock.advance(MINUTE);
      await dispatcher.emit(createTestEvent('customer.created'));
      await dispatcher.runDue();

      expect((await dispatcher.deliveries.list()).map((d) => [d.event_type, d.webhook_id])).toEqual([
        ['customer.created', ok.id],
        ['invoice.paid', failing.id],
        ['invoice.paid', ok.id],
      ]);
      expect((await dispatcher.deliveries.list({ status: 'retrying' })).map((d) => d.webhook_id)).toEqual([failing.id]);
      expect(await dispatcher.deliveries.list({ status: 'delivered' })).toHaveLength(2);
      expect(await dispatcher.deliveries.list({ event_type: 'customer.created' })).toHaveLength(1);
      expect(await dispatcher.deliveries.list({ event_type: 'invoice.*' })).toHaveLength(2);
      expect(await dispatcher.deliveries.list({ event_type: '*' })).toHaveLength(3);
      expect(await dispatcher.deliveries.list({ webhook_id: failing.id, event_type: 'invoice.paid' })).toHaveLength(1);
      expect((await dispatcher.deliveries.list({ event_id: invoice.id })).map((d) => d.webhook_id)).toEqual([failing.id, ok.id]);
      expect(await dispatcher.deliveries.list({ created_after: new Date(t0 + MINUTE) })).toHaveLength(1);
      expect(await dispatcher.deliveries.list({ created_before: new Date(t0 + MINUTE).toISOString() })).toHaveLength(2);
      expect(await dispatcher.deliveries.list({ created_after: t0, created_before: t0 + 1 })).toHaveLength(2);
      // A fractional bound works as on a number line: before t0 + 0.5 includes t0.
      expect(await dispatcher.deliveries.list({ created_after: t0 - 0.5, created_before: t0 + 0.5 })).toHaveLength(2);
      expect(await dispatcher.deliveries.list({ limit: 1, offset: 1 })).toHaveLength(1);
    });
  });

  it.each([
    [{ status: 'failed' }, 'VALIDATION_ERROR', 'status'],
    [{ event_type: 'invoice.payed' }, 'UNKNOWN_EVENT_TYPE', 'event_type'],
    [{ event_type: 'invoices.*' }, 'UNKNOWN_EVENT_TYPE', 'event_type'],
    [{ event_type: 7 }, 'VALIDATION_ERROR', 'event_type'],
    [{ webhook_id: ['wh_1'] }, 'VALIDATION_ERROR', 'webhook_id'],
    [{ created_after: 'yesterday' }, 'VALIDATION_ERROR', 'created_after'],
    [{ created_before: Number.NaN }, 'VALIDATION_ERROR', 'created_before'],
    [{ created_before: new Date('not a date') }, 'VALIDATION_ERROR', 'created_before'],
    [{ attempted_after: 0 }, 'VALIDATION_ERROR', 'attempted_after'],
    [{ since: 0 }, 'VALIDATION_ERROR', 'since'],
    [{ limit: 0 }, 'VALIDATION_ERROR', 'limit'],
    [{ limit: 1001 }, 'VALIDATION_ERROR', 'limit'],
    [{ offset: -1 }, 'VALIDATION_ERROR', 'offset'],
    [{ response_status_class: '2XX' }, 'VALIDATION_ERROR', 'response_status_class'],
    [{ correlation_id: 42 }, 'VALIDATION_ERROR', 'correlation_id'],
  ])('refuses the list filter %o', async (filter, code, field) => {
    const dispatcher = testDispatcher();
    await expect(dispatcher.deliveries.list(filter as never)).rejects.toMatchObject({ code, details: { field, ...(code === 'VALIDATION_ERROR' ? { reason: expect.any(String) } : {}) } });
  });

  it.each([
    [{ status: 'failed' }, 'VALIDATION_ERROR', 'status'],
    [{ response_status_class: 'none ' }, 'VALIDATION_ERROR', 'response_status_class'],
    [{ event_type: 'invoices.*' }, 'UNKNOWN_EVENT_TYPE', 'event_type'],
    [{ limit: 10 }, 'VALIDATION_ERROR', 'limit'],
    [{ offset: 10 }, 'VALIDATION_ERROR', 'offset'],
  ])('refuses the count filter %o', async (filter, code, field) => {
    const dispatcher = testDispatcher();
    await expect(dispatcher.deliveries.count(filter as never)).rejects.toMatchObject({ code, details: { field } });
  });

  it.each([
    [{ attempted_after: 'soon' }, 'VALIDATION_ERROR', 'attempted_after'],
    [{ limit: 10 }, 'VALIDATION_ERROR', 'limit'],
    [{ event_type: 'uva' }, 'UNKNOWN_EVENT_TYPE', 'event_type'],
  ])('refuses the export filter %o', async (filter, code, field) => {
    const dispatcher = testDispatcher();
    await expect(exportLines(dispatcher, filter as never)).rejects.toMatchObject({ code, details: { field } });
  });

  it('answers NOT_FOUND for an unknown delivery', async () => {
    const dispatcher = testDispatcher();
    await expect(dispatcher.deliveries.get('dlv_nope')).rejects.toMatchObject({ code: 'NOT_FOUND', details: { resource: 'delivery', id: 'dlv_nope' } });
    await expect(dispatcher.deliveries.retry('dlv_nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('deliveries.retry (manual)', () => {
  it('makes one attempt now; success marks a finally failed delivery delivered', async () => {
    let healthy = false;
    const receiver = new Receiver(() => (healthy ? 200 : 500));
    await withServer(receiver.listener, async (url) => {
      const { dispatcher, clock } = clockedDispatcher({ schedule: [0, 60] });
      await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.emit(createTestEvent('payment.refunded'));
      await dispatcher.runDue();
      clock.advance(MINUTE);
      await dispatcher.runDue();
      const [delivery] = await dispatcher.deliveries.list();
      expect(delivery!.status).toBe('finally_failed');

      healthy = true;
      clock.advance(MINUTE);
      const { delivery: after, attempt } = await dispatcher.deliveries.retry(delivery!.id);
      expect(attempt).toMatchObject({ manual: true, attempt_number: 3, response_status: 200, attempted_at: new Date(clock.now()).toISOString() });
      expect(after).toMatchObject({ status: 'delivered', attempt_count: 3, automatic_attempt_count: 2, next_attempt_at: null });
      expect(await dispatcher.runDue()).toBe(0);
    });
  });

  it('a failed manual attempt is logged and leaves the schedule as it was', async () => {
    const receiver = new Receiver(() => 500);
    await withServer(receiver.listener, async (url) => {
      const { dispatcher, clock } = clockedDispatcher();
      await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.emit(createTestEvent('payment.failed'));
      const start = clock.now();
      await dispatcher.runDue();
      const [delivery] = await dispatcher.deliveries.list();
      clock.advance(20_000);
      const { delivery: after } = await dispatcher.deliveries.retry(delivery!.id);
      expect(after).toMatchObject({ status: 'retrying', attempt_count: 2, automatic_attempt_count: 1, next_attempt_at: new Date(start + MINUTE).toISOString() });

      clock.set(start + MINUTE);
      expect(await dispatcher.runDue()).toBe(1);
      const detail = await dispatcher.deliveries.get(delivery!.id);
      expect(detail.attempts.map((a) => [a.attempt_number, a.manual])).toEqual([
        [1, false],
        [2, true],
        [3, false],
      ]);
      expect(detail).toMatchObject({ automatic_attempt_count: 2, next_attempt_at: new Date(start + MINUTE + 5 * MINUTE).toISOString() });
    });
  });

  it('allows 50 manual retries per 15 minutes, then RATE_LIMIT_EXCEEDED with retry_after', async () => {
    expect(MANUAL_RETRY_LIMIT).toEqual({ max: 50, windowMs: 15 * MINUTE });
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      const { dispatcher, clock } = clockedDispatcher();
      await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.emit(createTestEvent('invoice.paid'));
      await dispatcher.runDue();
      const [delivery] = await dispatcher.deliveries.list();
      const first = clock.now();
      for (let i = 0; i < 50; i++) {
        await dispatcher.deliveries.retry(delivery!.id);
        clock.advance(1_000);
      }
      const error = await dispatcher.deliveries.retry(delivery!.id).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({
        code: 'RATE_LIMIT_EXCEEDED',
        details: { limit: 50, window: '15 minutes', retry_after: 15 * 60 - 50, reset_at: new Date(first + 15 * MINUTE).toISOString() },
      });
      expect(receiver.requests).toHaveLength(51);

      clock.set(first + 15 * MINUTE);
      await expect(dispatcher.deliveries.retry(delivery!.id)).resolves.toMatchObject({ attempt: { manual: true } });
    });
  });

  it('takes its limit from manualRetryLimit', async () => {
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      const { dispatcher } = clockedDispatcher({ manualRetryLimit: { max: 2, windowMs: MINUTE } });
      await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.emit(createTestEvent('invoice.paid'));
      const [delivery] = await dispatcher.deliveries.list();
      await dispatcher.deliveries.retry(delivery!.id);
      await dispatcher.deliveries.retry(delivery!.id);
      await expect(dispatcher.deliveries.retry(delivery!.id)).rejects.toMatchObject({ details: { retry_after: 60, limit: 2, window: '1 minute' } });
    });
  });
});

describe('deliveries.export (JSON Lines)', () => {
  it('writes one attempt per line with every field, and round-trips to deliveries.get field by field', async () => {
    const receiver = new Receiver((request) => (request.index % 3 === 0 ? { status: 500, body: 'Fehler: Datenbank nicht erreichbar ✗\n' } : 200));
    await withServer(receiver.listener, async (url) => {
      const { dispatcher, clock } = clockedDispatcher();
      await dispatcher.webhooks.create({ url: `${url}/a`, events: ['*'], headers: { 'x-tenant': 'wien' } });
      await dispatcher.webhooks.create({ url: `${url}/b`, events: ['invoice.*'] });
      await dispatcher.emit(createTestEvent('invoice.paid'));
      await dispatcher.emit(createTestEvent('uva.submitted'));
      await dispatcher.emit(createTestEvent('invoice.sent'));
      await dispatcher.runDue();
      clock.advance(MINUTE);
      await dispatcher.runDue();
      const [someDelivery] = await dispatcher.deliveries.list();
      await dispatcher.deliveries.retry(someDelivery!.id);

      const { text, count } = await exportLines(dispatcher);
      expect(text.endsWith('\n')).toBe(true);
      const lines = text.split('\n').slice(0, -1);
      expect(lines).toHaveLength(count);
      expect(count).toBe(receiver.requests.length);

      const parsed = lines.map((line) => JSON.parse(line) as ExportedAttempt);
      for (const line of parsed) {
        const delivery = await dispatcher.deliveries.get(line.delivery_id);
        const attempt = delivery.attempts.find((candidate) => candidate.id === line.id);
        expect(line).toStrictEqual({ ...attempt, delivery_status: delivery.status });
      }
      expect(Object.keys(parsed[0]!)).toEqual([
        'id', 'delivery_id', 'webhook_id', 'url', 'event_id', 'event_type', 'attempt_number', 'attempted_at', 'response_status',
        'response_time_ms', 'receiver_ip', 'correlation_id', 'request_payload', 'response_body', 'response_body_truncated',
        'error_kind', 'error_message', 'manual', 'test', 'delivery_status',
      ]);
      expect(parsed.some((line) => line.manual)).toBe(true);
      expect(parsed.some((line) => line.response_body?.includes('✗'))).toBe(true);
      // In the order the attempts were made.
      expect(parsed.map((line) => line.attempted_at)).toEqual([...parsed.map((line) => line.attempted_at)].sort());
    });
  });

  it('filters like list, and by the attempt time, and pages through a long log waiting for drain', async () => {
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      const { dispatcher, clock } = clockedDispatcher({ concurrency: 50 });
      await dispatcher.webhooks.create({ url, events: ['*'] });
      for (let i = 0; i < 1200; i++) await dispatcher.emit(createTestEvent(i % 2 === 0 ? 'invoice.paid' : 'customer.updated'));
      const t0 = clock.now();
      await dispatcher.runDue();

      // A stream with a tiny buffer that is read slowly: export must wait for 'drain'.
      const stream = new PassThrough({ highWaterMark: 1024 });
      let received = '';
      stream.on('data', (chunk: Buffer) => {
        stream.pause();
        received += chunk.toString('utf8');
        setImmediate(() => stream.resume());
      });
      const count = await dispatcher.deliveries.export(stream, { event_type: 'invoice.paid' });
      expect(count).toBe(600);
      await new Promise<void>((resolve) => stream.end(resolve));
      expect(received.split('\n').filter(Boolean)).toHaveLength(600);
      expect(new Set(received.split('\n').filter(Boolean).map((line) => (JSON.parse(line) as ExportedAttempt).id)).size).toBe(600);

      expect((await exportLines(dispatcher, { attempted_after: t0 + 1 })).count).toBe(0);
      expect((await exportLines(dispatcher, { status: 'delivered', attempted_before: t0 + 1 })).count).toBe(1200);
      expect((await exportLines(dispatcher, { event_type: 'customer.*', created_after: t0, attempted_after: t0 })).count).toBe(600);
      expect((await exportLines(dispatcher, { created_before: t0 })).count).toBe(0);
    });
  });
});
