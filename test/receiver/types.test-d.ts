import express from 'express';
import { describe, expectTypeOf, it } from 'vitest';
import {
  constructEvent,
  memoryStore,
  verifySignature,
  webhookHandler,
  Webhooks,
  type EventMap,
  type HandlerContext,
  type ReceiveOutcome,
  type WebhookEvent,
  type WebhookEventHandler,
  type SecretCacheOptions,
  type WebhookSecretLookup,
  type WebhookSecretRequest,
} from '../../src/index.js';

// Type tests: vitest's typecheck mode compiles this file and counts each case; nothing here runs.
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

// The README's handler examples, exactly as a user writes them: they must compile.
describe('handlers may return anything', () => {
  it('takes expression bodies that return a value', () => {
    const hooks = new Webhooks();
    hooks.on('invoice.paid', (e) => e.data.object.paid_at);
    hooks.on('invoice.*', (e) => e.type);
    hooks.on(['payment.failed', 'uva.rejected'], (e) => e.data.object.id);
    hooks.onAny((e) => e.id);
    hooks.onError((error) => error.errors.length);
    expectTypeOf<WebhookEventHandler<EventMap['invoice.paid']>>().returns.toEqualTypeOf<unknown>();
  });

  it('takes async handlers that return a Response or anything else', () => {
    const hooks = new Webhooks()
      .on('invoice.paid', async (event, { signal }) => fetch(`https://erp.example.at/invoices/${event.data.object.id}/paid`, { method: 'POST', signal }))
      .on('payment.received', async (event) => {
        const response: Response = await fetch('https://erp.example.at/payments', { method: 'POST', body: JSON.stringify(event.data.object) });
        return response.status;
      })
      .on('customer.created', (event, { log }) => log.info({ customer: event.data.object.id }, 'new customer'));
    expectTypeOf(hooks).toEqualTypeOf<Webhooks>();
  });

  it('reports what handlers returned in the outcome, typed as unknown', () => {
    expectTypeOf<ReceiveOutcome['results']>().toEqualTypeOf<readonly unknown[] | undefined>();
  });
});

describe('verifying with the headers a framework gives', () => {
  it('takes node:http and Express headers (string | string[] | undefined) and Fetch Headers as they come', () => {
    const _compiledOnly = (req: express.Request, request: Request, secret: string) => {
      const fromExpress = constructEvent(req.body as Buffer, req.headers, secret);
      const fromFetch = constructEvent('{}', request.headers, [secret, 'whsec_previous']);
      expectTypeOf(fromExpress).toEqualTypeOf<WebhookEvent>();
      expectTypeOf(fromFetch).toEqualTypeOf<WebhookEvent>();
      verifySignature({
        payload: req.body as Buffer,
        signature: req.headers['x-svc-signature'],
        timestamp: req.headers['x-svc-timestamp'],
        secret,
      });
    };
  });

  it('refuses a parsed body where raw bytes are needed', () => {
    const _compiledOnly = (req: express.Request, secret: string) => {
      // @ts-expect-error a parsed object is not the raw body
      constructEvent({ id: 'evt_1' }, req.headers, secret);
    };
  });
});

describe('the secret as a function', () => {
  it('is given the path, the lower-case headers and the unverified business id, and may answer at once or later', () => {
    const _compiledOnly = (lookUp: (businessId: string) => Promise<string | undefined>) => {
      const secret: WebhookSecretLookup = (request) => {
        expectTypeOf(request).toEqualTypeOf<WebhookSecretRequest>();
        expectTypeOf(request.path).toEqualTypeOf<string>();
        expectTypeOf(request.headers).toEqualTypeOf<Readonly<Record<string, string>>>();
        expectTypeOf(request.businessId).toEqualTypeOf<string | undefined>();
        return request.businessId === undefined ? undefined : lookUp(request.businessId);
      };
      webhookHandler({ secret, store: memoryStore(), secretCache: { maxEntries: 1_000, ttlMs: 30_000 }, secretTimeoutMs: 2_000 });
      webhookHandler({ secret: () => ['whsec_current', 'whsec_previous'], secretCache: false });
      webhookHandler({ secret: ({ businessId }) => (businessId === 'biz_1' ? 'whsec_1' : undefined) });
      const cache: SecretCacheOptions = { maxEntries: 10 };
      expectTypeOf(cache.ttlMs).toEqualTypeOf<number | undefined>();
    };
  });

  it('refuses an answer that is not a secret, a list of them or undefined', () => {
    const _compiledOnly = () => {
      // @ts-expect-error a number is not a secret
      webhookHandler({ secret: () => 42 });
      // @ts-expect-error the cache is false or its bounds
      webhookHandler({ secret: () => 'whsec_1', secretCache: true });
    };
  });
});
