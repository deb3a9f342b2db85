import { Inject, Injectable } from '@nestjs/common';
import { describe, expectTypeOf, it } from 'vitest';
import type { EventForPattern, HandlerContext, Receiver, WebhookEvent } from '../../src/index.js';
import { AcctWebhookModule, OnWebhook, WEBHOOK_RECEIVER, type AcctWebhookModuleOptions } from '../../src/adapters/nestjs/index.js';

// Type tests: vitest's typecheck mode compiles this file and counts each case; nothing here runs.
// Decorators are checked when the class is compiled: a mistyped method is an error at its decorator.
describe('@OnWebhook typing', () => {
  it('accepts a method taking the events its pattern selects, with or without the context', () => {
    @Injectable()
    class Billing {
      @OnWebhook('invoice.paid')
      paid(event: WebhookEvent<'invoice.paid'>, context: HandlerContext) {
        expectTypeOf(event.data.object.paid_at).toEqualTypeOf<string>();
        return context.signal;
      }

      @OnWebhook('invoice.*')
      invoices(event: EventForPattern<'invoice.*'>) {
        expectTypeOf(event.type).toEqualTypeOf<'invoice.created' | 'invoice.sent' | 'invoice.paid' | 'invoice.overdue' | 'invoice.cancelled'>();
      }

      @OnWebhook(['payment.failed', 'uva.rejected'])
      async either(event: WebhookEvent<'payment.failed' | 'uva.rejected'>) {
        await Promise.resolve(event.id);
      }

      // A wider parameter is fine: every event fits WebhookEvent.
      @OnWebhook('customer.created')
      any(event: WebhookEvent) {
        return event.type;
      }
    }
    expectTypeOf(Billing).toBeConstructibleWith();
  });

  it('refuses a method whose event is not the pattern\'s, an unknown type, and a property', () => {
    class Wrong {
      // @ts-expect-error customer.created is not what invoice.paid delivers
      @OnWebhook('invoice.paid')
      paid(event: WebhookEvent<'customer.created'>) {
        return event;
      }

      // @ts-expect-error invoice.paid alone is narrower than the group delivers
      @OnWebhook('invoice.*')
      group(event: WebhookEvent<'invoice.paid'>) {
        return event;
      }

      // @ts-expect-error not an event type
      @OnWebhook('invoice.payed')
      typo() {}

      // @ts-expect-error decorates methods, not properties
      @OnWebhook('invoice.paid')
      property = 1;
    }
    expectTypeOf(Wrong).toBeConstructibleWith();
  });
});

describe('the module', () => {
  it('takes the receiver options and gives the receiver under its token', () => {
    expectTypeOf<Parameters<typeof AcctWebhookModule.forRoot>[0]>().toEqualTypeOf<AcctWebhookModuleOptions>();
    // @ts-expect-error forRoot takes an options object with a secret
    AcctWebhookModule.forRoot({ path: '/webhooks' });
    AcctWebhookModule.forRootAsync({ inject: ['config'], useFactory: (config: { secret: string }) => ({ secret: config.secret }) });
    // @ts-expect-error the factory returns the module options
    AcctWebhookModule.forRootAsync({ useFactory: () => ({ path: '/webhooks' }) });
    class Operations {
      constructor(@Inject(WEBHOOK_RECEIVER) readonly receiver: Receiver) {}
    }
    expectTypeOf<Operations['receiver']['inbox']>().toEqualTypeOf<Receiver['inbox']>();
  });
});
