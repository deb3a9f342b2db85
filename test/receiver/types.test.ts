import express from 'express';
import { describe, expectTypeOf, it } from 'vitest';
import { memoryStore, webhookHandler, Webhooks, type EventMap, type HandlerContext, type WebhookEvent } from '../../src/index.js';

// Checked by the compiler (`npm run typecheck`); at run time these only register handlers.
describe('handler typing', () => {
  it('types the event of each handler from EventMap', () => {
    const hooks = new Webhooks()
      .on('invoice.paid', (event, context) => {
        expectTypeOf(event).toEqualTypeOf<EventMap['invoice.paid']>();
        expectTypeOf(event.data.object.paid_at).toEqualTypeOf<string>();
        expectTypeOf(context).toEqualTypeOf<HandlerContext>();
      })
      .on('invoice.*', (event) => {
        expectTypeOf(event.type).toEqualTypeOf<'invoice.created' | 'invoice.sent' | 'invoice.paid' | 'invoice.overdue' | 'invoice.cancelled'>();
        expectTypeOf(event.data.object.number).toEqualTypeOf<string>();
      })
      .on(['payment.failed', 'uva.rejected'], (event) => {
        expectTypeOf(event).toEqualTypeOf<EventMap['payment.failed'] | EventMap['uva.rejected']>();
        if (event.type === 'uva.rejected') expectTypeOf(event.data.object.rejection.message).toEqualTypeOf<string>();
      })
      .onAny((event) => {
        expectTypeOf(event).toEqualTypeOf<WebhookEvent>();
      });
    expectTypeOf(hooks).toEqualTypeOf<Webhooks>();
  });

  it('refuses misspelled event names at compile time', () => {
    const _compiledOnly = () => {
      // @ts-expect-error 'invoice.payed' is not an event type
      new Webhooks().on('invoice.payed', () => undefined);
      // @ts-expect-error 'bills.*' selects no event type
      new Webhooks().on('bills.*', () => undefined);
      new Webhooks().on('invoice.paid', (event) => {
        // @ts-expect-error an invoice has no `plan`
        void event.data.object.plan;
      });
    };
  });

  it('fits Express: app.use and app.post take the middleware', () => {
    // Compiled, never run: the default store would create ./webhook-events.db.
    const _compiledOnly = () => {
      const app = express();
      app.use(webhookHandler('whsec_typecheck'));
      app.post('/hooks', webhookHandler({ secret: ['whsec_a', 'whsec_b'], store: memoryStore(), logger: false }));
    };
    expectTypeOf(webhookHandler).returns.toExtend<express.RequestHandler>();
  });
});
