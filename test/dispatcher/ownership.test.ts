import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DispatcherError, type Dispatcher } from '../../src/dispatcher.js';
import { EVENT_TYPES, type EventPattern, type EventType } from '../../src/events/catalog.js';
import type { Logger } from '../../src/logging/logger.js';
import { createTestEvent } from '../../src/testing/index.js';
import { testDispatcher } from './fixtures.js';

const URL_ = 'http://127.0.0.1:9/hook';
const BUSINESSES = ['biz_a', 'biz_b', 'biz_c'];
const PATTERNS: EventPattern[] = ['*', 'invoice.*', 'invoice.paid', 'customer.created', 'payment.*'];

/** The registrations an emitted event was queued for. */
async function targetsOf(dispatcher: Dispatcher, type: EventType, businessId: string): Promise<string[]> {
  const event = createTestEvent(type, { business_id: businessId });
  await dispatcher.emit(event);
  const deliveries = await dispatcher.deliveries.list({ event_id: event.id });
  return deliveries.map((delivery) => delivery.webhook_id).sort();
}

/** A logger that keeps its warnings. */
function warningLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const ignore = () => undefined;
  const logger: Logger = {
    debug: ignore,
    info: ignore,
    error: ignore,
    warn: (first: object | string, message?: string) => void warnings.push(typeof first === 'string' ? first : (message ?? '')),
    child: () => logger,
  };
  return { logger, warnings };
}

describe('registrations owned by a business', () => {
  it("isolation: every delivery's registration belongs to the event's business or is platform-scoped, and every such subscriber gets one", async () => {
    const registration = fc.record({
      owner: fc.constantFrom(...BUSINESSES, 'platform'),
      events: fc.subarray(PATTERNS, { minLength: 1 }),
    });
    const emitted = fc.record({ type: fc.constantFrom(...EVENT_TYPES), business: fc.constantFrom(...BUSINESSES, 'biz_unregistered') });
    await fc.assert(
      fc.asyncProperty(fc.array(registration, { minLength: 1, maxLength: 8 }), fc.array(emitted, { minLength: 1, maxLength: 6 }), async (registrations, events) => {
        const dispatcher = testDispatcher();
        try {
          const owners = new Map<string, { owner: string; events: EventPattern[] }>();
          for (const { owner, events: patterns } of registrations) {
            const created = await dispatcher.webhooks.create(owner === 'platform' ? { scope: 'platform', url: URL_, events: patterns } : { business_id: owner, url: URL_, events: patterns });
            owners.set(created.id, { owner, events: patterns });
          }
          for (const { type, business } of events) {
            const expected = [...owners]
              .filter(([, { owner, events: patterns }]) => (owner === 'platform' || owner === business) && patterns.some((pattern) => pattern === '*' || pattern === type || (pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1)))))
              .map(([id]) => id)
              .sort();
            expect(await targetsOf(dispatcher, type, business)).toEqual(expected);
          }
        } finally {
          await dispatcher.close();
        }
      }),
      { numRuns: 25 },
    );
  });

  it('records the owner: business_id and scope business, or scope platform with business_id null', async () => {
    const dispatcher = testDispatcher();
    expect(await dispatcher.webhooks.create({ business_id: 'biz_a', url: URL_, events: ['*'] })).toMatchObject({ business_id: 'biz_a', scope: 'business' });
    expect(await dispatcher.webhooks.create({ scope: 'platform', url: URL_, events: ['*'] })).toMatchObject({ business_id: null, scope: 'platform' });
    await dispatcher.close();
  });

  it.each([
    ['platform scope with a business', { scope: 'platform', business_id: 'biz_a' }, 'business_id'],
    ['an empty business id', { business_id: '' }, 'business_id'],
    ['a business id that is not a string', { business_id: 42 }, 'business_id'],
    ['an unknown scope', { scope: 'everyone' }, 'scope'],
  ])('refuses %s with VALIDATION_ERROR naming the field', async (_name, owner, field) => {
    const dispatcher = testDispatcher();
    const error = await dispatcher.webhooks.create({ url: URL_, events: ['*'], ...(owner as object) }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DispatcherError);
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    await dispatcher.close();
  });

  it("keeps 1.0's call without an owner: every business's events, with one warning naming the registration", async () => {
    const { logger, warnings } = warningLogger();
    const dispatcher = testDispatcher({ logger });
    const legacy = await dispatcher.webhooks.create({ url: URL_, events: ['*'] });
    expect(legacy).toMatchObject({ business_id: null, scope: 'all' });
    expect(await targetsOf(dispatcher, 'invoice.paid', 'biz_a')).toEqual([legacy.id]);
    expect(await targetsOf(dispatcher, 'invoice.paid', 'biz_b')).toEqual([legacy.id]);
    expect(warnings.filter((warning) => warning.includes(legacy.id))).toHaveLength(1);
    await dispatcher.close();
  });

  it('gives an owner to a registration without one by update', async () => {
    const dispatcher = testDispatcher();
    const legacy = await dispatcher.webhooks.create({ url: URL_, events: ['*'] });
    expect(await dispatcher.webhooks.update(legacy.id, { business_id: 'biz_a' })).toMatchObject({ business_id: 'biz_a', scope: 'business' });
    expect(await targetsOf(dispatcher, 'invoice.paid', 'biz_b')).toEqual([]);
    expect(await targetsOf(dispatcher, 'invoice.paid', 'biz_a')).toEqual([legacy.id]);
    await dispatcher.close();
  });

  it("pages one business's registrations with a cursor that holds while more are added", async () => {
    const dispatcher = testDispatcher();
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      created.push((await dispatcher.webhooks.create({ business_id: 'biz_a', url: URL_, events: ['*'] })).id);
      await dispatcher.webhooks.create({ business_id: 'biz_b', url: URL_, events: ['*'] });
    }
    const first = await dispatcher.webhooks.list({ business_id: 'biz_a', limit: 3 });
    expect(first.data.map((webhook) => webhook.id)).toEqual(created.slice(0, 3));
    created.push((await dispatcher.webhooks.create({ business_id: 'biz_a', url: URL_, events: ['*'] })).id);
    const second = await dispatcher.webhooks.list({ business_id: 'biz_a', limit: 3, cursor: first.next_cursor! });
    expect(second.data.map((webhook) => webhook.id)).toEqual(created.slice(3));
    expect(second.next_cursor).toBeNull();
    await expect(dispatcher.webhooks.list({ business_id: 'biz_a', cursor: 'not-a-cursor' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'cursor' } });
    await expect(dispatcher.webhooks.list({ limit: 0 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'limit' } });
    await dispatcher.close();
  });
});
