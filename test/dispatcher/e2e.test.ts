import express from 'express';
import { describe, expect, it } from 'vitest';
import { memoryStore, webhookHandler, Webhooks, type ExpressWebhookHandler, type WebhookEvent } from '../../src/index.js';
import { EVENT_TYPES, type EventType } from '../../src/events/catalog.js';
import { createTestEvent } from '../../src/testing/index.js';
import { withServer } from '../helpers/server.js';
import { clockedDispatcher, MINUTE } from './fixtures.js';

describe('end to end: Dispatcher → Express app with webhookHandler', () => {
  it('all 18 types, the first attempt of some failing: every event handled exactly once, the log complete', async () => {
    const { dispatcher, clock } = clockedDispatcher();
    const failOnce = new Set<EventType>(EVENT_TYPES.filter((_, index) => index % 3 === 0));
    const calls = new Map<string, number>();
    const handled = new Map<string, WebhookEvent>();

    const hooks = new Webhooks().onAny((event) => {
      const call = (calls.get(event.id) ?? 0) + 1;
      calls.set(event.id, call);
      if (failOnce.has(event.type) && call === 1) throw new Error('ledger temporarily unavailable');
      handled.set(event.id, event);
    });

    // The secret exists once the webhook does, and the webhook needs the server's URL: the app
    // delegates to a handler built right after registration.
    let receive: ExpressWebhookHandler | undefined;
    const app = express();
    app.use((req, res, next) => receive!(req, res, next));

    await withServer(app, async (url) => {
      const { secret } = await dispatcher.webhooks.create({ url: `${url}/webhooks`, events: ['*'] });
      receive = webhookHandler({ secret, handlers: hooks, store: memoryStore(), logger: false, clock: clock.now });
      const emitted: WebhookEvent[] = [];
      for (const type of EVENT_TYPES) emitted.push(await dispatcher.emit(createTestEvent(type)));

      expect(await dispatcher.runDue()).toBe(18);
      expect(handled.size).toBe(18 - failOnce.size);
      clock.advance(MINUTE);
      expect(await dispatcher.runDue()).toBe(failOnce.size);

      // Delivered twice on purpose: the receiver acknowledges the repeat and does not run the handler.
      const [anyDelivery] = await dispatcher.deliveries.list({ event_type: 'invoice.paid' });
      const repeat = await dispatcher.deliveries.retry(anyDelivery!.id);
      expect(repeat.attempt.response_status).toBe(200);
      expect(JSON.parse(repeat.attempt.response_body!)).toMatchObject({ duplicate: true });

      // Every event handled exactly once, exactly as emitted.
      expect(handled.size).toBe(18);
      for (const event of emitted) {
        expect(handled.get(event.id)).toEqual(event);
        expect(calls.get(event.id)).toBe(failOnce.has(event.type) ? 2 : 1);
      }

      // The delivery log: one delivery per event, delivered; attempts as they happened.
      const deliveries = await dispatcher.deliveries.list({ limit: 100 });
      expect(deliveries).toHaveLength(18);
      for (const delivery of deliveries) {
        const detail = await dispatcher.deliveries.get(delivery.id);
        expect(detail.status).toBe('delivered');
        const statuses = detail.attempts.filter((attempt) => !attempt.manual).map((attempt) => attempt.response_status);
        expect(statuses).toEqual(failOnce.has(delivery.event_type) ? [500, 200] : [200]);
        for (const attempt of detail.attempts) {
          expect(attempt).toMatchObject({ event_id: delivery.event_id, event_type: delivery.event_type, receiver_ip: '127.0.0.1' });
          expect(JSON.parse(attempt.request_payload)).toEqual(emitted.find((event) => event.id === delivery.event_id));
          expect(attempt.correlation_id).toBe((JSON.parse(attempt.request_payload) as WebhookEvent).correlation_id);
        }
      }
    });
    await receive?.receiver.close();
  });
});
