import { describe, expect, it } from 'vitest';
import { createTestEvent } from '../../src/testing/index.js';
import type { Client, Fetched } from './fixtures.js';
import { PORTAL_BASE, portalSetup, type PortalSetup } from './portal-fixtures.js';

/*
 * The portal walked as an attacker would: business A, signed in with `manage`, sends every route
 * and every action of the portal with business B's ids (and the platform-wide registration's).
 * Each answers 404 — the same page as an id that does not exist — B's objects stay as they were,
 * and no page A can reach carries any of B's markers.
 */

interface Business {
  id: string;
  webhookId: string;
  deliveryId: string;
  eventId: string;
  markers: string[];
}

/** A registration of `business` with a custom header, one event delivered to it, a second that failed. */
async function seed(s: PortalSetup, business: string, events: 'invoice.*' | 'customer.*'): Promise<Business> {
  const marker = `MARK${business.toUpperCase()}`;
  const webhook = await s.dispatcher.webhooks.create({ business_id: business, url: `${s.targetUrl}?who=${marker}URL`, events: [events], headers: { 'x-marker': `${marker}HEADER` } });
  const type = events === 'invoice.*' ? 'invoice.paid' : 'customer.created';
  const event = createTestEvent(type, { business_id: business, data: { object: { id: `${marker}OBJECT` } } });
  await s.dispatcher.emit(event);
  await s.dispatcher.runDue();
  const [delivery] = await s.dispatcher.deliveries.list({ event_id: event.id });
  return { id: business, webhookId: webhook.id, deliveryId: delivery!.id, eventId: event.id, markers: [webhook.id, delivery!.id, event.id, `${marker}URL`, `${marker}HEADER`, `${marker}OBJECT`] };
}

/** Same length as `id`, same prefix, but no such object. */
const missingLike = (id: string): string => `${id.slice(0, id.indexOf('_') + 1)}${'z'.repeat(id.length - id.indexOf('_') - 1)}`;

function expectNoMarker(page: Fetched, markers: readonly string[], where: string): void {
  for (const marker of markers) expect(page.text.includes(marker), `${where} shows ${marker}`).toBe(false);
}

async function walkSetup() {
  const s = await portalSetup();
  const a = await seed(s, 'biz_a', 'invoice.*');
  const b = await seed(s, 'biz_b', 'customer.*');
  const platform = await s.dispatcher.webhooks.create({ scope: 'platform', url: `${s.targetUrl}?who=PLATFORMURL`, events: ['*'] });
  const client = await s.signedIn('biz_a');
  return { s, a, b, platform, client };
}

/** The GET pages that take an id, with `:id` for a registration's and `:dl` for a delivery's. */
const ID_PAGES = ['/webhooks/:id', '/deliveries/:dl', '/deliveries?webhook_id=:id', '/deliveries/retry?webhook_id=:id'];
/** The actions that take an id, with their forms' fields. */
const ID_ACTIONS: readonly [string, Record<string, string | string[]>][] = [
  ['/webhooks/:id', { url: 'https://attacker.example/hook', events: '*' }],
  ['/webhooks/:id/test', {}],
  ['/webhooks/:id/rotate-secret', { grace_ms: '0' }],
  ['/webhooks/:id/status', { status: 'disabled' }],
  ['/webhooks/:id/status', { status: 'active', replay: '1' }],
  ['/webhooks/:id/delete', {}],
  ['/deliveries/:dl/retry', {}],
  ['/deliveries/retry', { webhook_id: ':id' }],
];

const fill = (text: string, ids: { id: string; dl: string }) => text.replaceAll(':id', ids.id).replaceAll(':dl', ids.dl);

describe('the portal walked with another business’s ids', () => {
  it('answers every page and action 404, the same page as a missing id, and changes nothing', async () => {
    const { s, a, b, platform, client } = await walkSetup();
    const before = { webhook: await s.dispatcher.webhooks.get(b.webhookId), delivery: await s.dispatcher.deliveries.get(b.deliveryId), platform: await s.dispatcher.webhooks.get(platform.id) };
    const foreign = [
      { id: b.webhookId, dl: b.deliveryId },
      { id: platform.id, dl: b.deliveryId },
    ];
    let checked = 0;
    for (const ids of foreign) {
      const missing = { id: missingLike(ids.id), dl: missingLike(ids.dl) };
      const strip = (page: Fetched, of: { id: string; dl: string }) => page.text.replaceAll(of.id, 'ID').replaceAll(of.dl, 'DL');
      for (const route of ID_PAGES) {
        const got = await client.get(`${PORTAL_BASE}${fill(route, ids)}`);
        const none = await client.get(`${PORTAL_BASE}${fill(route, missing)}`);
        expect(got.status, route).toBe(404);
        expect(none.status, route).toBe(404);
        expect(strip(got, ids), route).toBe(strip(none, missing));
        expectNoMarker(got, [...b.markers.slice(3), 'PLATFORMURL'], route);
        checked++;
      }
      for (const [route, fields] of ID_ACTIONS) {
        const form = Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, typeof value === 'string' ? fill(value, ids) : value]));
        const got = await client.post(`${PORTAL_BASE}${fill(route, ids)}`, form);
        const missingForm = Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, typeof value === 'string' ? fill(value, missing) : value]));
        const none = await client.post(`${PORTAL_BASE}${fill(route, missing)}`, missingForm);
        expect(got.status, `POST ${route}`).toBe(404);
        expect(none.status, `POST ${route}`).toBe(404);
        expect(strip(got, ids), route).toBe(strip(none, missing));
        expectNoMarker(got, [...b.markers.slice(3), 'PLATFORMURL'], `POST ${route}`);
        checked++;
      }
    }
    expect(checked).toBe(2 * (ID_PAGES.length + ID_ACTIONS.length));
    // Nothing of B's (or the platform's) changed: not disabled, not rotated, not retried, not deleted.
    expect(await s.dispatcher.webhooks.get(b.webhookId)).toEqual(before.webhook);
    expect(await s.dispatcher.webhooks.get(platform.id)).toEqual(before.platform);
    expect(await s.dispatcher.deliveries.get(b.deliveryId)).toEqual(before.delivery);
    // A's own objects answer.
    expect((await client.get(`${PORTAL_BASE}/webhooks/${a.webhookId}`)).status).toBe(200);
    expect((await client.get(`${PORTAL_BASE}/deliveries/${a.deliveryId}`)).status).toBe(200);
  });

  it("shows none of another business's markers on any page, and counts only its own", async () => {
    const { b, a, client } = await walkSetup();
    const foreignMarkers = [...b.markers, 'PLATFORMURL'];
    const pages = [
      '/',
      '/webhooks',
      '/webhooks/new',
      `/webhooks/${a.webhookId}`,
      '/deliveries',
      '/deliveries?status=delivered',
      `/deliveries?q=${b.eventId}`,
      `/deliveries?q=${a.eventId}`,
      `/deliveries/${a.deliveryId}`,
      '/deliveries/retry',
      '/event-types',
    ];
    for (const path of pages) {
      const page = await client.get(`${PORTAL_BASE}${path}`);
      expect(page.status, path).toBe(200);
      // The search box shows back what was typed into it; nothing else of B's.
      expectNoMarker(page, path.includes(b.eventId) ? foreignMarkers.filter((marker) => marker !== b.eventId) : foreignMarkers, path);
    }
    const searched = await client.get(`${PORTAL_BASE}/deliveries?q=${b.eventId}`);
    const missing = missingLike(b.eventId);
    expect(searched.text.replaceAll(b.eventId, 'Q')).toBe((await client.get(`${PORTAL_BASE}/deliveries?q=${missing}`)).text.replaceAll(missing, 'Q'));
    expect(searched.text).toContain('No delivery matches');
    const list = await client.get(`${PORTAL_BASE}/deliveries`);
    expect(list.text).toContain(a.deliveryId);
    expect(list.text).toContain(a.eventId);
    const confirm = await client.get(`${PORTAL_BASE}/deliveries/retry`);
    expect(confirm.text).toContain('<strong id="match-count">1</strong> deliveries match');
    const retried = await client.post(`${PORTAL_BASE}/deliveries/retry`, {});
    expect(retried.text).toMatch(/Retried <strong id="retried-count">1<\/strong> of 1 matching/);
    const registrations = await client.get(`${PORTAL_BASE}/webhooks`);
    expect(registrations.text).toContain('1 registration(s)');
  });
});

describe('what a business does with manage access', () => {
  it('registers, sends a test, reads the delivery, retries, rotates the secret (shown once), disables, enables and deletes', async () => {
    const s = await portalSetup();
    const client: Client = await s.signedIn('biz_a');
    const form = await client.get(`${PORTAL_BASE}/webhooks/new`);
    expect(form.text).toContain('<span class="muted">when an invoice is created</span>');
    const created = await client.post(`${PORTAL_BASE}/webhooks`, { url: s.targetUrl, events: ['invoice.*'], headers: 'X-Api-Key: k1', scheme: 'svc', algorithm: 'hmac-sha256' });
    expect(created.status).toBe(201);
    const secret = /<code class="secret" id="secret">(whsec_[^<]+)<\/code>/.exec(created.text)![1]!;
    expect(created.text).toContain('data-copy="secret"');
    const [webhook] = await s.dispatcher.webhooks.list();
    expect(webhook).toMatchObject({ url: s.targetUrl, business_id: 'biz_a' });
    const id = webhook!.id;
    const page = await client.get(`${PORTAL_BASE}/webhooks/${id}`);
    expect(page.text).not.toContain(secret);

    const tested = await client.post(`${PORTAL_BASE}/webhooks/${id}/test`);
    expect(tested.status).toBe(200);
    expect(tested.text).toContain('A test delivery was sent');
    expect(tested.text).toContain('Response time');
    const deliveryId = /<dt>Delivery<\/dt><dd class="mono">([^<]+)</.exec(tested.text)![1]!;
    const retried = await client.post(`${PORTAL_BASE}/deliveries/${deliveryId}/retry`);
    expect(retried.text).toContain('The delivery was retried now');
    expect((await s.dispatcher.deliveries.get(deliveryId)).attempt_count).toBe(2);

    const rotated = await client.post(`${PORTAL_BASE}/webhooks/${id}/rotate-secret`, { grace_ms: '0' });
    const next = /<code class="secret" id="secret">(whsec_[^<]+)<\/code>/.exec(rotated.text)![1]!;
    expect(next).not.toBe(secret);
    expect((await client.get(`${PORTAL_BASE}/webhooks/${id}`)).text).not.toContain(next);

    await client.post(`${PORTAL_BASE}/webhooks/${id}/status`, { status: 'disabled' });
    expect((await s.dispatcher.webhooks.get(id)).status).toBe('disabled');
    await client.post(`${PORTAL_BASE}/webhooks/${id}/status`, { status: 'active' });
    expect((await s.dispatcher.webhooks.get(id)).status).toBe('active');

    const saved = await client.post(`${PORTAL_BASE}/webhooks/${id}`, { url: s.targetUrl, events: ['customer.*'], headers: '', scheme: 'svc' });
    expect(saved.text).toContain('The registration was saved.');
    expect((await s.dispatcher.webhooks.get(id)).events).toEqual(['customer.*']);

    const deleted = await client.post(`${PORTAL_BASE}/webhooks/${id}/delete`);
    expect(deleted.text).toContain('The registration was deleted');
    await expect(s.dispatcher.webhooks.get(id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses a registration the dispatcher refuses: plain http elsewhere than loopback, a private address', async () => {
    const s = await portalSetup({ dispatcher: { allowInsecureUrls: false } });
    const client = await s.signedIn('biz_a');
    for (const url of ['http://example.com/hook', 'https://127.0.0.1/hook', 'https://10.0.0.1/hook', 'https://[::1]/hook']) {
      const refused = await client.post(`${PORTAL_BASE}/webhooks`, { url, events: ['*'] });
      expect(refused.status, url).toBe(422);
    }
    expect(await s.dispatcher.webhooks.list()).toEqual([]);
  });

  it("limits manual retries per business to the dispatcher's limit", async () => {
    const s = await portalSetup({ dispatcher: { manualRetryLimit: { max: 2, windowMs: 60_000 } } });
    await s.dispatcher.webhooks.create({ business_id: 'biz_a', url: s.targetUrl, events: ['invoice.*'] });
    await s.dispatcher.emit(createTestEvent('invoice.paid', { business_id: 'biz_a' }));
    await s.dispatcher.runDue();
    const [delivery] = await s.dispatcher.deliveries.list();
    const client = await s.signedIn('biz_a');
    expect((await client.post(`${PORTAL_BASE}/deliveries/${delivery!.id}/retry`)).status).toBe(200);
    expect((await client.post(`${PORTAL_BASE}/deliveries/${delivery!.id}/retry`)).status).toBe(200);
    const third = await client.post(`${PORTAL_BASE}/deliveries/${delivery!.id}/retry`);
    expect(third.status).toBe(429);
    expect(third.text).toContain('at most 2 retries per 1 minute');
  });
});
