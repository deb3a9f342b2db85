import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, parseEvent, WebhookValidationError } from '../../src/index.js';
import { EVENT_CATALOG, EVENT_GROUPS, expandEventPattern } from '../../src/events/catalog.js';
import { webhookEventSchema } from '../../src/events/schemas.js';
import { createTestEvent } from '../../src/testing/index.js';

function failure(input: unknown): WebhookValidationError {
  try {
    parseEvent(input);
  } catch (error) {
    if (error instanceof WebhookValidationError) return error;
    throw error;
  }
  throw new Error('expected parseEvent to fail');
}

describe('the event catalog', () => {
  it('has the 18 types of the platform document, grouped as there', () => {
    expect(EVENT_TYPES).toHaveLength(18);
    const byGroup = Object.fromEntries(
      Object.keys(EVENT_GROUPS).map((group) => [
        group,
        EVENT_TYPES.filter((type) => EVENT_CATALOG[type].group === group).length,
      ]),
    );
    expect(byGroup).toEqual({ invoices: 5, customers: 3, payments: 3, subscriptions: 4, uva: 3 });
  });

  it('expands patterns', () => {
    expect(expandEventPattern('invoice.*')).toHaveLength(5);
    expect(expandEventPattern('*')).toHaveLength(18);
    expect(expandEventPattern('uva.rejected')).toEqual(['uva.rejected']);
    expect(expandEventPattern('invoice.payed')).toEqual([]);
    expect(expandEventPattern('constructor')).toEqual([]);
  });
});

describe('createTestEvent + parseEvent', () => {
  it.each(EVENT_TYPES)('a sample %s passes parseEvent, as JSON text and as bytes', (type) => {
    const event = createTestEvent(type);
    expect(event.type).toBe(type);
    expect(event.id).toMatch(/^evt_test_/);
    expect(parseEvent(JSON.stringify(event))).toEqual(event);
    expect(parseEvent(Buffer.from(JSON.stringify(event)))).toEqual(event);
    expect(webhookEventSchema.safeParse(event).success).toBe(true);
  });

  it('gives every sample a fresh id and the current time', () => {
    const a = createTestEvent('invoice.paid');
    const b = createTestEvent('invoice.paid');
    expect(a.id).not.toBe(b.id);
    expect(Math.abs(Date.parse(a.created) - Date.now())).toBeLessThan(5_000);
  });

  it('deep-merges overrides and keeps the rest of the sample', () => {
    const event = createTestEvent('invoice.paid', { id: 'evt_fixed', data: { object: { amount: 5000 } } });
    expect(event.id).toBe('evt_fixed');
    expect(event.data.object.amount).toBe(5000);
    expect(event.data.object.currency).toBe('EUR');
    expect(event.data.previous_attributes).toEqual({ status: 'sent', paid_at: null });
  });

  it('keeps unknown extra fields untouched (forward compatibility)', () => {
    const event = { ...createTestEvent('payment.received'), livemode: true };
    const withExtra = { ...event, data: { ...event.data, object: { ...event.data.object, sepa_mandate: { id: 'm_1' } } } };
    const parsed = parseEvent(JSON.stringify(withExtra));
    expect(parsed).toEqual(withExtra);
  });
});

describe('parseEvent refuses what does not match, naming the field', () => {
  const paid = createTestEvent('invoice.paid');
  const withObject = (patch: Record<string, unknown>) => ({ ...paid, data: { ...paid.data, object: { ...paid.data.object, ...patch } } });
  const cases: [string, unknown, string][] = [
    ['amount as a string', withObject({ amount: '16950' }), 'data.object.amount'],
    ['amount with cents as a fraction', withObject({ amount: 169.5 }), 'data.object.amount'],
    ['amount beyond a safe integer', withObject({ amount: 2 ** 60 }), 'data.object.amount'],
    ['lower-case currency', withObject({ currency: 'eur' }), 'data.object.currency'],
    ['currency name instead of code', withObject({ currency: 'Euro' }), 'data.object.currency'],
    ['status not paid on invoice.paid', withObject({ status: 'sent' }), 'data.object.status'],
    ['paid_at missing on invoice.paid', withObject({ paid_at: null }), 'data.object.paid_at'],
    ['bad api_version', { ...paid, api_version: '2026-13' }, 'api_version'],
    ['api_version as a date', { ...paid, api_version: '2026-11-01' }, 'api_version'],
    ['missing id', { ...paid, id: undefined }, 'id'],
    ['created not ISO 8601', { ...paid, created: '22.11.2026' }, 'created'],
    ['missing data.object', { ...paid, data: {} }, 'data.object'],
    ['missing business_id', { ...paid, business_id: undefined }, 'business_id'],
  ];

  it.each(cases.map(([name, input, field]) => [name, field, input] as const))('%s → VALIDATION_ERROR at %s', (_name, field, input) => {
    const error = failure(JSON.stringify(input));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details.field).toBe(field);
    expect(error.issues.map((issue) => issue.path)).toContain(field);
  });

  it('checks an Austrian UID: ATU and 8 digits', () => {
    const customer = createTestEvent('customer.created');
    const bad = { ...customer, data: { object: { ...customer.data.object, uid_number: 'ATU1234' } } };
    expect(failure(bad).details.field).toBe('data.object.uid_number');
    const german = { ...customer, data: { object: { ...customer.data.object, uid_number: 'DE123456789' } } };
    expect(parseEvent(german).data.object).toMatchObject({ uid_number: 'DE123456789' });
  });

  it('gives an unknown type its own code and keeps the id', () => {
    const error = failure(JSON.stringify({ ...paid, type: 'invoice.archived' }));
    expect(error.code).toBe('UNKNOWN_EVENT_TYPE');
    expect(error.details).toMatchObject({ type: 'invoice.archived', event_id: paid.id });
  });

  const malformed: [string, unknown, string][] = [
    ['an empty body', '', 'INVALID_JSON'],
    ['truncated JSON', JSON.stringify(paid).slice(0, 40), 'INVALID_JSON'],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]), 'INVALID_ENCODING'],
    ['a JSON array', '[]', 'VALIDATION_ERROR'],
    ['a JSON string', '"invoice.paid"', 'VALIDATION_ERROR'],
    ['null', 'null', 'VALIDATION_ERROR'],
    ['no type', JSON.stringify({ ...paid, type: undefined }), 'VALIDATION_ERROR'],
    ['type "constructor"', JSON.stringify({ ...paid, type: 'constructor' }), 'UNKNOWN_EVENT_TYPE'],
  ];
  it.each(malformed.map(([name, input, code]) => [name, code, input] as const))('%s → %s', (_name, code, input) => {
    expect(failure(input).code).toBe(code);
  });

  it('refuses keys that would pollute prototypes, even escaped', () => {
    const body = JSON.stringify(paid);
    const polluted = [
      body.replace('"data":{', '"data":{"__proto__":{"isAdmin":true},'),
      body.replace('"data":{', '"data":{"\\u005f_proto__":{"isAdmin":true},'),
      body.replace('"data":{', '"data":{"constructor":{"prototype":{"isAdmin":true}},'),
    ];
    for (const text of polluted) {
      expect(failure(text).code).toBe('VALIDATION_ERROR');
    }
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it('accepts "constructor" as an ordinary value', () => {
    const event = createTestEvent('customer.updated', { data: { object: { name: 'constructor GmbH' } } });
    expect(parseEvent(JSON.stringify(event)).data.object).toMatchObject({ name: 'constructor GmbH' });
  });
});
