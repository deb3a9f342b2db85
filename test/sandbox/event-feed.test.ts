import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiValidationError, createClient, type Client } from '../../src/client/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { apiClient, type ApiCall } from './helpers.js';

/** An event as the API answers it, as far as these tests read it. */
interface Row {
  id: string;
  type: string;
  created: string;
  business_id: string;
  data: { object: { name?: string } };
}

/*
 * GET /v1/events and GET /v1/events/{id}: the account's events, oldest first, in the document's
 * list conventions and by a cursor that skips and repeats nothing while events keep arriving; the
 * typed client's events.list, get and iterate against it.
 */

let sandbox: Sandbox;
let call: ApiCall;
let client: Client;
beforeAll(async () => {
  sandbox = await createSandbox({ seed: 40, plan: 'business' });
  call = apiClient(sandbox);
  client = createClient({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });
});
afterAll(() => sandbox.close());

let customers = 0;
async function newCustomer(): Promise<void> {
  const answer = await call('POST', '/customers', { name: `Kunde ${++customers} GmbH`, email: `k${customers}@example.com` });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
}

async function allIds(): Promise<string[]> {
  const ids: string[] = [];
  for await (const event of client.events.iterate()) ids.push(event.id);
  return ids;
}

describe('GET /v1/events', () => {
  it('lists the account’s events oldest first, in pages of per_page with the document’s pagination', async () => {
    for (let i = 0; i < 5; i++) await newCustomer();
    const all = await call('GET', '/events?per_page=100');
    expect(all.status).toBe(200);
    const events = all.body.data as Row[];
    expect(events.map((event) => event.type)).toEqual(Array(5).fill('customer.created'));
    expect(events.map((event) => event.data.object.name)).toEqual(['Kunde 1 GmbH', 'Kunde 2 GmbH', 'Kunde 3 GmbH', 'Kunde 4 GmbH', 'Kunde 5 GmbH']);
    const { business } = await client.me();
    expect(events.every((event) => event.business_id === business.id)).toBe(true);

    type Page = { data: Row[]; pagination: { next_cursor: string } };
    const second = await call<Page>('GET', '/events?per_page=2&page=2');
    expect(second.body.data.map((event: Row) => event.id)).toEqual(events.slice(2, 4).map((event) => event.id));
    expect(second.body.pagination).toEqual({ page: 2, per_page: 2, total_count: 5, total_pages: 3, next_cursor: expect.stringMatching(/^ec1_/), has_more: true });
    // The cursor of a page goes on where the page ended.
    const after = await call<Page>('GET', `/events?per_page=2&cursor=${second.body.pagination.next_cursor}`);
    expect(after.body.data.map((event: Row) => event.id)).toEqual([events[4]!.id]);
    expect(after.body.pagination).toMatchObject({ page: null, total_count: null, total_pages: null, has_more: false });

    expect((await call('GET', '/events?types=invoice.*')).body.pagination).toMatchObject({ total_count: 0 });
    expect((await call('GET', '/events?types=customer.*,invoice.paid')).body.pagination).toMatchObject({ total_count: 5 });
    expect((await call<Page>('GET', `/events?created_after=${encodeURIComponent(events[4]!.created)}`)).body.data.map((event: Row) => event.id)).toEqual([events[4]!.id]);

    const one = await call('GET', `/events/${events[1]!.id}`);
    expect(one).toMatchObject({ status: 200, body: { data: events[1] } });
    expect((await call('GET', '/events/evt_missing')).status).toBe(404);
  });

  it('refuses what it cannot answer: per_page over 100, an unknown type, a page past the last, a descending order, a made-up cursor', async () => {
    for (const [query, field] of [
      ['per_page=101', 'per_page'],
      ['types=invoice.lost', 'types'],
      ['page=999', 'page'],
      ['order=desc', 'order'],
      ['cursor=abc', 'cursor'],
      ['created_after=yesterday', 'created_after'],
      ['page=2&cursor=ec1_MS4x', 'page'],
    ] as const) {
      const answer = await call<{ error: unknown }>('GET', `/events?${query}`);
      expect(answer.status, query).toBeGreaterThanOrEqual(400);
      expect(answer.body.error, query).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    }
  });

  it('pages by cursor while events keep arriving: nothing skipped, nothing repeated, in order', async () => {
    const before = await allIds();
    const emitted: Promise<void>[] = [];
    const paged: string[] = [];
    let cursor: string | undefined;
    // Each page is read while a new event is being recorded, and so on for 12 pages.
    for (let round = 0; round < 12; round++) {
      emitted.push(newCustomer());
      const page = await client.events.list({ per_page: 3, ...(cursor === undefined ? {} : { cursor }) });
      paged.push(...page.data.map((event) => event.id));
      cursor = page.pagination.next_cursor;
    }
    await Promise.all(emitted);
    for (;;) {
      const page = await client.events.list({ per_page: 3, ...(cursor === undefined ? {} : { cursor }) });
      paged.push(...page.data.map((event) => event.id));
      cursor = page.pagination.next_cursor;
      if (!page.pagination.has_more) break;
    }
    const after = await allIds();
    expect(after).toHaveLength(before.length + 12);
    expect(paged).toEqual(after);
    // The last cursor, kept, gives the events recorded later, and only those.
    await newCustomer();
    const later = await client.events.list(cursor === undefined ? {} : { cursor });
    expect(later.data.map((event) => event.data.object)).toEqual([expect.objectContaining({ name: `Kunde ${customers} GmbH` })]);
  });

  it('answers a created_after or a cursor older than the retention with a clear error, not an empty page', async () => {
    const { pagination } = await client.events.list({ per_page: 1 });
    const now = Date.parse((await call('GET', '/sandbox/clock')).body.data.now);
    const answer = await call('GET', `/events?created_after=${new Date(now - 31 * 86_400_000).toISOString()}`);
    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('further than the events are kept (30 days'), details: { field: 'created_after', expired: true } });
    await expect(client.events.list({ created_after: now - 31 * 86_400_000 })).rejects.toBeInstanceOf(ApiValidationError);
    await call('POST', '/sandbox/clock', { advance: '31d' });
    const stale = await call('GET', `/events?cursor=${pagination.next_cursor}`);
    expect(stale.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'cursor', expired: true } });
  });
});

describe('the client’s events', () => {
  it('get and iterate: every event once, oldest first, the types filter applied', async () => {
    const ids = await allIds();
    expect(new Set(ids).size).toBe(ids.length);
    expect((await client.events.get(ids[0]!)).id).toBe(ids[0]);
    const customerEvents: string[] = [];
    for await (const event of client.events.iterate({ types: ['customer.*'], per_page: 4 })) customerEvents.push(event.id);
    expect(customerEvents).toEqual(ids);
    const none: string[] = [];
    for await (const event of client.events.iterate({ types: 'uva.submitted' })) none.push(event.id);
    expect(none).toEqual([]);
  });
});
