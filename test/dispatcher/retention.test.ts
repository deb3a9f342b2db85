import { describe, expect, it } from 'vitest';
import { PAYLOAD_REMOVED } from '../../src/dispatcher.js';
import type { Logger } from '../../src/index.js';
import { createTestEvent } from '../../src/testing/index.js';
import { withServer } from '../helpers/server.js';
import { BUSINESS_ID, clockedDispatcher, MINUTE, Receiver } from './fixtures.js';

/*
 * The delivery log's retention through the Dispatcher, on an injected clock: the options, the
 * worker pruning by itself, payloads removed with the metadata kept, a manual retry refused for a
 * removed payload, and the erase by business (the store-level cases are the retention contract,
 * run on every backend).
 */

const DAY = 24 * 60 * MINUTE;
const SCHEDULE = [0, 60];

function recordingLogger(): Logger & { lines: { level: string; fields: Record<string, unknown>; message: string }[] } {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const at =
    (level: string) =>
    (fields: unknown, message?: unknown): void => {
      lines.push({ level, fields: typeof fields === 'object' && fields !== null ? (fields as Record<string, unknown>) : {}, message: String(message ?? fields) });
    };
  const logger = { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => logger };
  return logger;
}

describe('the delivery log retention of a Dispatcher', () => {
  it('removes payloads after payloadRetentionMs and deliveries after deliveryRetentionMs; never one still retrying', async () => {
    const receiver = new Receiver((request) => (JSON.parse(request.body).type === 'payment.failed' ? { status: 500, body: 'nope' } : { status: 200, body: 'thanks' }));
    await withServer(receiver.listener, async (url) => {
      const { dispatcher, clock } = clockedDispatcher({ schedule: SCHEDULE, deliveryRetentionMs: 30 * DAY, payloadRetentionMs: 7 * DAY });
      await dispatcher.webhooks.create({ url, events: ['invoice.paid', 'payment.failed'] });
      const paid = await dispatcher.emit(createTestEvent('invoice.paid'));
      const failing = await dispatcher.emit(createTestEvent('payment.failed'));
      expect(await dispatcher.runDue()).toBe(2);
      const [delivered] = await dispatcher.deliveries.list({ event_id: paid.id });
      const [retrying] = await dispatcher.deliveries.list({ event_id: failing.id });
      // Nothing runs the failing one again here: it stays retrying, however old it gets.
      expect(retrying).toMatchObject({ status: 'retrying', attempt_count: 1 });

      clock.advance(7 * DAY - 1);
      expect(await dispatcher.pruneDeliveries()).toEqual({ deliveries: 0, payloads: 0 });
      clock.advance(2);
      expect(await dispatcher.pruneDeliveries()).toEqual({ deliveries: 0, payloads: 1 });
      const detail = await dispatcher.deliveries.get(delivered!.id);
      expect(detail).toMatchObject({ status: 'delivered', attempt_count: 1 });
      expect(detail.attempts[0]).toMatchObject({ response_status: 200, request_payload: PAYLOAD_REMOVED, response_body: PAYLOAD_REMOVED });
      await expect(dispatcher.deliveries.retry(delivered!.id)).rejects.toMatchObject({ code: 'PAYLOAD_NOT_KEPT' });

      clock.advance(23 * DAY);
      expect(await dispatcher.pruneDeliveries()).toEqual({ deliveries: 1, payloads: 0 });
      await expect(dispatcher.deliveries.get(delivered!.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(await dispatcher.deliveries.get(retrying!.id)).toMatchObject({ status: 'retrying', attempts: [{ response_body: 'nope' }] });
      expect(JSON.parse((await dispatcher.deliveries.get(retrying!.id)).attempts[0]!.request_payload)).toMatchObject({ id: failing.id });
    });
  });

  it('is pruned by the running worker, at most hourly, in the background', async () => {
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      const logger = recordingLogger();
      const { dispatcher, clock } = clockedDispatcher({ schedule: SCHEDULE, deliveryRetentionMs: DAY, logger, pollIntervalMs: 10 });
      await dispatcher.webhooks.create({ url, events: ['*'] });
      const event = await dispatcher.emit(createTestEvent('invoice.paid'));
      expect(await dispatcher.runDue()).toBe(1);
      clock.advance(DAY + 1);
      await dispatcher.start();
      await expect.poll(async () => (await dispatcher.deliveries.list({ event_id: event.id })).length).toBe(0);
      await dispatcher.stop();
      expect(logger.lines.filter((line) => line.message === 'Pruned the delivery log').map((line) => line.fields)).toEqual([{ deliveries: 1, payloads: 0 }]);
    });
  });

  it('erases the payloads of one business, logged with counts and never a payload', async () => {
    const receiver = new Receiver(() => ({ status: 200, body: 'private answer' }));
    await withServer(receiver.listener, async (url) => {
      const logger = recordingLogger();
      const { dispatcher } = clockedDispatcher({ schedule: SCHEDULE, logger });
      await dispatcher.webhooks.create({ url, events: ['*'] });
      const gone = await dispatcher.emit('customer.created', createTestEvent('customer.created').data.object, { business_id: 'biz_erased00000000' });
      const kept = await dispatcher.emit('customer.created', createTestEvent('customer.created').data.object, { business_id: BUSINESS_ID });
      expect(await dispatcher.runDue()).toBe(2);

      expect(await dispatcher.eraseBusiness('biz_erased00000000')).toEqual({ events: 1, attempts: 1, deliveriesEnded: 0, webhooks: 0 });
      const [erased] = await dispatcher.deliveries.list({ event_id: gone.id });
      expect((await dispatcher.deliveries.get(erased!.id)).attempts[0]).toMatchObject({ request_payload: PAYLOAD_REMOVED, response_body: PAYLOAD_REMOVED });
      const [untouched] = await dispatcher.deliveries.list({ event_id: kept.id });
      expect((await dispatcher.deliveries.get(untouched!.id)).attempts[0]).toMatchObject({ response_body: 'private answer' });
      const line = logger.lines.find((entry) => entry.message === 'Erased the stored payloads of a business');
      expect(line?.fields).toEqual({ businessId: 'biz_erased00000000', events: 1, attempts: 1, deliveriesEnded: 0, webhooks: 0 });
      expect(JSON.stringify(logger.lines)).not.toContain('private answer');
    });
  });
});
