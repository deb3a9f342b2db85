import { describe, expectTypeOf, it } from 'vitest';
import type { EventMap, EventType, WebhookEvent } from '../../src/index.js';
import { createTestEvent } from '../../src/testing/index.js';

// Type tests: vitest's typecheck mode compiles this file and counts each case; nothing here runs.
describe('event typing', () => {
  it('types each event from the catalog', () => {
    expectTypeOf<EventMap['invoice.paid']['data']['object']['amount']>().toEqualTypeOf<number>();
    expectTypeOf<EventMap['invoice.paid']['data']['object']['paid_at']>().toEqualTypeOf<string>();
    expectTypeOf<EventMap['invoice.created']['data']['object']['paid_at']>().toEqualTypeOf<string | null>();
    expectTypeOf<EventMap['invoice.paid']['type']>().toEqualTypeOf<'invoice.paid'>();
    expectTypeOf<EventMap['subscription.updated']['data']['object']['plan']>().toEqualTypeOf<
      'free' | 'starter' | 'pro' | 'business' | 'enterprise'
    >();
    expectTypeOf<WebhookEvent['type']>().toEqualTypeOf<EventType>();
  });

  it('refuses unknown event names where a known one is required', () => {
    // Compiled, never called: a misspelled type must not compile.
    const _misspelled = () => {
      // @ts-expect-error 'invoice.payed' is not an event type
      createTestEvent('invoice.payed');
      // @ts-expect-error 'invoice.payed' is not a key of EventMap
      type _Misspelled = EventMap['invoice.payed'];
    };
    const event = createTestEvent('payment.refunded');
    expectTypeOf(event.data.object.refunded_amount).toEqualTypeOf<number>();
    // @ts-expect-error a typo in a field name is a compile error, not `unknown`
    void event.data.object.amout;
  });

  it('narrows the union by type', () => {
    const event = createTestEvent('uva.rejected') as WebhookEvent;
    if (event.type === 'uva.rejected') {
      expectTypeOf(event.data.object.rejection.code).toEqualTypeOf<string>();
    }
  });
});
