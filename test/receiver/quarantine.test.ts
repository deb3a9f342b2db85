import { describe, expect, it } from 'vitest';
import { createReceiver, memoryStore, ReceiverError, WebhookValidationError, Webhooks } from '../../src/index.js';
import { createTestEvent, signedRequest } from '../../src/testing/index.js';

const SECRET = 'whsec_quarantineSecret000000000000000';

function receiverWithLog() {
  const handled: string[] = [];
  const hooks = new Webhooks().onAny((event) => {
    handled.push(event.id);
  });
  return { receiver: createReceiver({ secret: SECRET, handlers: hooks, store: memoryStore(), logger: false }), handled };
}

describe('quarantine and reprocessing', () => {
  it('keeps an invalid payload, counts its redeliveries, and refuses to reprocess it while it is still invalid', async () => {
    const { receiver, handled } = receiverWithLog();
    const { body, headers } = signedRequest(createTestEvent('payment.refunded', { data: { object: { refunded_amount: -5 } } }), SECRET);
    for (let delivery = 0; delivery < 3; delivery++) {
      expect((await receiver.receive({ rawBody: body, headers, method: 'POST' })).status).toBe(422);
    }
    const [entry] = await receiver.store.quarantine.list();
    expect(entry).toMatchObject({ reason: 'invalid_payload', error_code: 'VALIDATION_ERROR', deliveries: 3 });
    await expect(receiver.reprocess(entry!.id)).rejects.toBeInstanceOf(WebhookValidationError);
    expect(await receiver.store.quarantine.list()).toHaveLength(1);
    expect(handled).toEqual([]);
  });

  it('runs a kept payload through the handlers once it validates, then removes it', async () => {
    const { receiver, handled } = receiverWithLog();
    const event = createTestEvent('uva.confirmed');
    // As an older version without uva.confirmed would have kept it.
    const entry = await receiver.store.quarantine.put({
      reason: 'unknown_event_type',
      event_id: event.id,
      event_type: event.type,
      error_code: 'UNKNOWN_EVENT_TYPE',
      error_message: 'Unknown event type "uva.confirmed"',
      raw_body: Buffer.from(JSON.stringify(event)),
      received_at: Date.now(),
    });
    const response = await receiver.reprocess(entry.id);
    expect(response).toMatchObject({ status: 200, body: { id: event.id, duplicate: false } });
    expect(handled).toEqual([event.id]);
    expect(await receiver.store.quarantine.list()).toEqual([]);
    await expect(receiver.reprocess(entry.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(receiver.reprocess(entry.id)).rejects.toBeInstanceOf(ReceiverError);
  });

  it('does not run an event twice when its quarantined copy is reprocessed after a valid delivery', async () => {
    const { receiver, handled } = receiverWithLog();
    const event = createTestEvent('invoice.overdue');
    const { body, headers } = signedRequest(event, SECRET);
    await receiver.receive({ rawBody: body, headers, method: 'POST' });
    const entry = await receiver.store.quarantine.put({
      reason: 'invalid_payload',
      event_id: event.id,
      event_type: event.type,
      error_code: 'VALIDATION_ERROR',
      error_message: 'was invalid once',
      raw_body: Buffer.from(body),
      received_at: Date.now(),
    });
    expect((await receiver.reprocess(entry.id)).body).toMatchObject({ duplicate: true });
    expect(handled).toEqual([event.id]);
  });
});
