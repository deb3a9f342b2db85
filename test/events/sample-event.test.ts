import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/events/catalog.js';
import { parseEvent } from '../../src/events/parse.js';
import { catalogSample, sampleEvent } from '../../src/events/sample-event.js';

describe('sampleEvent', () => {
  it.each(EVENT_TYPES)('%s: a valid event of its type, the catalog sample as its object', (type) => {
    const event = sampleEvent(type);
    expect(parseEvent(JSON.stringify(event))).toEqual(event);
    expect(event).toMatchObject({ type, business_id: 'biz_4mVt9QeZxK2hRw7L', id: expect.stringMatching(/^evt_/) });
    const { object, previous_attributes } = catalogSample(type);
    expect(event.data.object).toEqual(object);
    expect((event.data as { previous_attributes?: unknown }).previous_attributes).toEqual(previous_attributes);
  });

  it('takes the envelope fields it is given and hands out fresh copies', () => {
    const event = sampleEvent('invoice.paid', { id: 'evt_fixed', now: Date.UTC(2026, 0, 2), correlation_id: 'cor_fixed' });
    expect(event).toMatchObject({ id: 'evt_fixed', created: '2026-01-02T00:00:00.000Z', correlation_id: 'cor_fixed' });
    event.data.object.amount = 1;
    expect(sampleEvent('invoice.paid').data.object.amount).not.toBe(1);
  });
});
