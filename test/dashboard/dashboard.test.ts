import { describe, expect, it } from 'vitest';
import { dashboard, dashboardFetchHandler, dashboardNodeHandler } from '../../src/dashboard/index.js';
import { createTestEvent } from '../../src/testing/index.js';
import { testDispatcher } from '../dispatcher/fixtures.js';
import type { RequestListener } from 'node:http';
import { fetchListener } from '../helpers/fetch-server.js';
import { withServer } from '../helpers/server.js';
import { BASE, Client, oneDelivery, setup } from './fixtures.js';

describe('options are checked when the factory runs', () => {
  const dispatcher = () => testDispatcher();
  it.each([
    ['no authorize', () => ({ dispatcher: dispatcher() }), 'authorize'],
    ['authorize not a function', () => ({ dispatcher: dispatcher(), authorize: true }), 'authorize'],
    ['neither side', () => ({ authorize: () => true }), 'dispatcher'],
    ['a relative base path', () => ({ dispatcher: dispatcher(), authorize: () => true, basePath: 'admin' }), 'basePath'],
    ['an unknown option', () => ({ dispatcher: dispatcher(), authorize: () => true, open: true }), 'open'],
    ['a logger that is not one', () => ({ dispatcher: dispatcher(), authorize: () => true, logger: { error: () => undefined } }), 'logger'],
  ])('%s → INVALID_CONFIGURATION on %s', (_name, options, option) => {
    for (const factory of [dashboard, dashboardNodeHandler, dashboardFetchHandler]) {
      expect(() => factory(options() as never)).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: expect.objectContaining({ option }) }));
    }
  });
});

describe('access', () => {
  it.each([
    ['false', () => false],
    ['a promise of false', () => Promise.resolve(false)],
    ['a truthy non-boolean', () => 'yes' as unknown as boolean],
    ['a throw', () => { throw new Error('session store down'); }],
  ])('authorize answering %s → 403 FORBIDDEN on every page, asset and action', async (_name, authorize) => {
    const s = await setup({ authorize });
    for (const path of ['/', '/webhooks', '/deliveries', '/receiver/quarantine', '/assets/dashboard.css']) {
      const page = await s.client.get(`${BASE}${path}`, { accept: 'application/json' });
      expect(page.status, path).toBe(403);
      expect(JSON.parse(page.text)).toMatchObject({ error: { code: 'FORBIDDEN' } });
    }
    const posted = await s.client.post(`${BASE}/webhooks`, { url: s.targetUrl, events: '*' });
    expect(posted.status).toBe(403);
    expect(await s.dispatcher.webhooks.list()).toEqual([]);
  });

  it('authorize gets the framework request: node:http IncomingMessage', async () => {
    const seen: string[] = [];
    const s = await setup({ authorize: (req) => { seen.push((req as { headers: Record<string, string> }).headers['x-user'] ?? ''); return (req as { headers: Record<string, string> }).headers['x-user'] === 'admin'; } });
    expect((await s.client.get(`${BASE}/`, { 'x-user': 'admin' })).status).toBe(200);
    expect((await s.client.get(`${BASE}/`, { 'x-user': 'guest' })).status).toBe(403);
    expect(seen).toEqual(['admin', 'guest']);
  });

  it('answers only below the base path: node:http 404 outside, Express hands on to next', async () => {
    const s = await setup();
    expect((await s.client.get('/elsewhere')).status).toBe(404);
    expect((await s.client.get(`${BASE}x/`)).status).toBe(404);
    const board = dashboard({ dispatcher: s.dispatcher, authorize: () => true, basePath: BASE });
    const express = (await import('express')).default;
    const app = express();
    app.use(board);
    app.get('/elsewhere', (_req, res) => void res.send('host app'));
    await withServer(app, async (url) => {
      expect(await (await fetch(`${url}/elsewhere`)).text()).toBe('host app');
      expect((await fetch(`${url}${BASE}/deliveries`)).status).toBe(200);
    });
  });
});

describe('forms', () => {
  it('a form over 64 KiB → 413 PAYLOAD_TOO_LARGE, nothing registered', async () => {
    const s = await setup();
    await s.client.get(`${BASE}/webhooks/new`);
    const page = await s.client.post(`${BASE}/webhooks`, { url: s.targetUrl, events: '*', headers: `X-Big: ${'a'.repeat(70_000)}` }, { accept: 'application/json' });
    expect(page.status).toBe(413);
    expect(JSON.parse(page.text)).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(await s.dispatcher.webhooks.list()).toEqual([]);
  });

  it('Express: a body already parsed by express.urlencoded() is used, the CSRF check still applies', async () => {
    const s = await setup();
    const express = (await import('express')).default;
    const app = express();
    app.use(express.urlencoded({ extended: false }));
    app.use(dashboard({ dispatcher: s.dispatcher, authorize: () => true, basePath: BASE }));
    await withServer(app, async (url) => {
      const client = new Client(url);
      await client.get(`${BASE}/webhooks/new`);
      expect((await client.post(`${BASE}/webhooks`, { url: s.targetUrl, events: 'invoice.*' })).status).toBe(201);
      expect((await client.post(`${BASE}/webhooks`, { url: s.targetUrl, events: '*', _csrf: 'C'.repeat(43) })).status).toBe(403);
    });
    expect((await s.dispatcher.webhooks.list()).map((webhook) => webhook.events)).toEqual([['invoice.*']]);
  });
});

describe('every answer carries the security headers', () => {
  it.each(['/', '/webhooks', '/deliveries', '/receiver/events', '/receiver/quarantine', '/receiver/inbox', '/nope', '/assets/dashboard.js'])('%s', async (path) => {
    const s = await setup();
    const page = await s.client.get(`${BASE}${path}`);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('CSRF', () => {
  it.each([
    ['no token', () => ({ _csrf: '' }), {}],
    ['a token of its own', () => ({ _csrf: 'A'.repeat(43) }), {}],
    ['the right token from another origin', (c: Client) => ({ _csrf: c.csrfToken }), { origin: 'http://evil.example' }],
  ])('a forged retry with %s → 403 CSRF_TOKEN_INVALID, nothing sent', async (_name, fields, headers) => {
    const s = await setup({ answer: () => 500 });
    const { delivery } = await oneDelivery(s);
    await s.client.get(`${BASE}/deliveries/${delivery.id}`);
    const forged = await s.client.post(`${BASE}/deliveries/${delivery.id}/retry`, fields(s.client), headers);
    expect(forged.status).toBe(403);
    expect(forged.text).toContain('CSRF_TOKEN_INVALID');
    expect((await s.dispatcher.deliveries.get(delivery.id)).attempt_count).toBe(1);
    expect(s.target.requests).toHaveLength(1);
  });

  it('a refused action answers a browser with a page that says what to do next, and an API client with the envelope', async () => {
    const s = await setup({ answer: () => 500 });
    const { delivery } = await oneDelivery(s);
    await s.client.get(`${BASE}/deliveries/${delivery.id}`);
    const page = await s.client.post(`${BASE}/deliveries/${delivery.id}/retry`, { _csrf: 'A'.repeat(43) }, { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    expect(page.status).toBe(403);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toMatch(/<p class="next-step">Nothing was changed\. Go back, reload the page .*submit it again/);
    const api = await s.client.post(`${BASE}/deliveries/${delivery.id}/retry`, { _csrf: 'A'.repeat(43) }, { accept: 'application/json' });
    expect(api.headers.get('content-type')).toContain('application/json');
    expect(JSON.parse(api.text)).toEqual({ error: { code: 'CSRF_TOKEN_INVALID', message: expect.any(String), details: {} } });
    const missing = await s.client.get(`${BASE}/deliveries/dlv_nope`);
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('Go back to the list it came from');
    expect((await s.dispatcher.deliveries.get(delivery.id)).attempt_count).toBe(1);
  });

  it('a POST from a client without the cookie (a cross-site form) → 403, nothing registered', async () => {
    const s = await setup();
    const stranger = new Client(s.origin);
    const page = await stranger.post(`${BASE}/webhooks`, { url: s.targetUrl, events: '*', _csrf: 'B'.repeat(43) });
    expect(page.status).toBe(403);
    expect(await s.dispatcher.webhooks.list()).toEqual([]);
  });
});

describe('escaping', () => {
  const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
  it('payload fields, response bodies, headers and URLs render as text', async () => {
    const s = await setup({ answer: () => ({ status: 500, body: HOSTILE }) });
    const { delivery, webhook } = await oneDelivery(s, { id: HOSTILE, customer_id: HOSTILE });
    await s.dispatcher.webhooks.update(webhook.id, { headers: { 'x-note': HOSTILE.replaceAll('<', '(') } });
    for (const path of [`/deliveries/${delivery.id}`, '/deliveries', `/webhooks/${webhook.id}`, `/deliveries?q=${encodeURIComponent(HOSTILE)}`]) {
      const page = await s.client.get(`${BASE}${path}`);
      expect(page.text, path).not.toContain('<script>alert');
      expect(page.text, path).not.toContain('<img src=x');
    }
    expect((await s.client.get(`${BASE}/deliveries/${delivery.id}`)).text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;');
  });
});

describe('retention', () => {
  it('a delivery whose payload was erased says "payload no longer kept" for the payload and the answer, and refuses a retry', async () => {
    const s = await setup({ answer: () => ({ status: 200, body: 'private answer' }) });
    const { delivery } = await oneDelivery(s);
    const event = await s.dispatcher.deliveries.get(delivery.id);
    const business = (JSON.parse(event.attempts[0]!.request_payload) as { business_id: string }).business_id;
    expect(await s.dispatcher.eraseBusiness(business)).toMatchObject({ events: 1, attempts: 1 });
    const page = await s.client.get(`${BASE}/deliveries/${delivery.id}`);
    expect(page.text.match(/Payload no longer kept\./g)).toHaveLength(2);
    expect(page.text).not.toContain('private answer');
    await expect(s.dispatcher.deliveries.retry(delivery.id)).rejects.toMatchObject({ code: 'PAYLOAD_NOT_KEPT' });
  });
});

describe('registrations', () => {
  it('create shows the secret once; the list, the page and later answers never do', async () => {
    const s = await setup();
    await s.client.get(`${BASE}/webhooks/new`);
    const created = await s.client.post(`${BASE}/webhooks`, { url: s.targetUrl, events: ['invoice.*', 'payment.received'], headers: 'X-Api-Key: k-123' });
    expect(created.status).toBe(201);
    const secret = /whsec_[A-Za-z0-9+/=_-]+/.exec(created.text)![0];
    const [webhook] = await s.dispatcher.webhooks.list();
    expect(webhook).toMatchObject({ url: s.targetUrl, events: ['invoice.*', 'payment.received'], headers: { 'x-api-key': 'k-123' } });
    for (const path of ['/webhooks', `/webhooks/${webhook!.id}`, '/']) expect((await s.client.get(`${BASE}${path}`)).text).not.toContain(secret);
    const rotated = await s.client.post(`${BASE}/webhooks/${webhook!.id}/rotate-secret`);
    const next = /whsec_[A-Za-z0-9+/=_-]+/.exec(rotated.text)![0];
    expect(next).not.toBe(secret);
    expect((await s.client.get(`${BASE}/webhooks/${webhook!.id}`)).text).not.toContain(next);
  });

  it('registers a Standard Webhooks ed25519 webhook: the pages show the scheme and the whpk_ public key, never a private key; a rotation with a grace shows until when', async () => {
    const s = await setup();
    await s.client.get(`${BASE}/webhooks/new`);
    const created = await s.client.post(`${BASE}/webhooks`, { url: s.targetUrl, events: ['*'], scheme: 'standard-webhooks', algorithm: 'ed25519' });
    expect(created.status).toBe(201);
    const [webhook] = await s.dispatcher.webhooks.list();
    expect(webhook).toMatchObject({ scheme: 'standard-webhooks', algorithm: 'ed25519', public_key: expect.stringMatching(/^whpk_/) });
    expect(created.text).toContain(webhook!.public_key);
    const detail = (await s.client.get(`${BASE}/webhooks/${webhook!.id}`)).text;
    expect(detail).toContain('<code>standard-webhooks</code>');
    expect(detail).toContain(webhook!.public_key);
    expect((await s.client.get(`${BASE}/webhooks`)).text).toContain('signed: standard-webhooks, ed25519');
    const rotated = await s.client.post(`${BASE}/webhooks/${webhook!.id}/rotate-secret`, { grace_ms: '86400000' });
    const after = await s.dispatcher.webhooks.get(webhook!.id);
    expect(after.public_key).not.toBe(webhook!.public_key);
    expect(rotated.text).toContain(after.public_key);
    expect(rotated.text).toContain(`keeps signing beside it until ${after.previous_secret_expires_at}`);
    for (const text of [created.text, detail, rotated.text]) expect(text).not.toContain('whsk_');
    const refused = await s.client.post(`${BASE}/webhooks`, { url: s.targetUrl, events: ['*'], scheme: 'svc', algorithm: 'ed25519' });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('VALIDATION_ERROR');
  });

  it('never renders custom header values; an empty edit keeps them, lines replace them, the checkbox removes them', async () => {
    const s = await setup();
    const webhook = await s.dispatcher.webhooks.create({ url: s.targetUrl, events: ['*'], headers: { 'x-api-key': 'receiver-key-123' } });
    for (const path of ['/webhooks', `/webhooks/${webhook.id}`]) {
      const page = await s.client.get(`${BASE}${path}`);
      expect(page.text).toContain('x-api-key');
      expect(page.text).not.toContain('receiver-key-123');
    }
    await s.client.post(`${BASE}/webhooks/${webhook.id}`, { url: s.targetUrl, events: ['invoice.*'], headers: '' });
    expect(await s.dispatcher.webhooks.get(webhook.id)).toMatchObject({ events: ['invoice.*'], headers: { 'x-api-key': 'receiver-key-123' } });
    await s.client.post(`${BASE}/webhooks/${webhook.id}`, { url: s.targetUrl, events: ['*'], headers: 'X-Tenant: t-1\nX-Api-Key: key-2' });
    expect((await s.dispatcher.webhooks.get(webhook.id)).headers).toEqual({ 'x-tenant': 't-1', 'x-api-key': 'key-2' });
    await s.client.post(`${BASE}/webhooks/${webhook.id}`, { url: s.targetUrl, events: ['*'], headers: '', remove_headers: '1' });
    expect((await s.dispatcher.webhooks.get(webhook.id)).headers).toEqual({});
  });

  it('a refused URL re-shows the form with the code and the values, nothing stored', async () => {
    const s = await setup();
    await s.client.get(`${BASE}/webhooks/new`);
    const page = await s.client.post(`${BASE}/webhooks`, { url: 'ftp://example.com/x', events: '*' });
    expect(page.status).toBe(422);
    expect(page.text).toContain('INVALID_URL');
    expect(page.text).toContain('value="ftp://example.com/x"');
    expect(await s.dispatcher.webhooks.list()).toEqual([]);
  });
});

describe('deliveries', () => {
  it('filters by status, HTTP status class, event id and correlation id; says where the page is', async () => {
    let status = 200;
    const s = await setup({ answer: () => status });
    const webhook = await s.dispatcher.webhooks.create({ url: s.targetUrl, events: ['*'] });
    const events = [];
    for (let index = 0; index < 60; index++) {
      status = index < 55 ? 200 : 503;
      const event = createTestEvent('customer.created');
      events.push(event);
      await s.dispatcher.emit(event);
      await s.dispatcher.runDue();
    }
    const all = await s.client.get(`${BASE}/deliveries`);
    expect(all.text).toMatch(/Showing <strong>1–50<\/strong> of <strong>60<\/strong> deliveries · page 1 of 2/);
    // Each row's last HTTP status, from each delivery's latest attempt: the 5 newest answered 503.
    expect([all.text.match(/status-5xx">503</g)?.length, all.text.match(/status-2xx">200</g)?.length]).toEqual([5, 45]);
    const second = await s.client.get(`${BASE}/deliveries?page=2`);
    expect(second.text).toMatch(/Showing <strong>51–60<\/strong> of <strong>60<\/strong>/);
    expect((await s.client.get(`${BASE}/deliveries?http=5xx`)).text).toMatch(/of <strong>5<\/strong>/);
    expect((await s.client.get(`${BASE}/deliveries?status=retrying&webhook_id=${webhook.id}`)).text).toMatch(/of <strong>5<\/strong>/);
    expect((await s.client.get(`${BASE}/deliveries?q=${events[3]!.id}`)).text).toMatch(/of <strong>1<\/strong>/);
    expect((await s.client.get(`${BASE}/deliveries?q=${events[7]!.correlation_id}`)).text).toMatch(/of <strong>1<\/strong>/);
    const refused = await s.client.get(`${BASE}/deliveries?event_type=nope.*`);
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('UNKNOWN_EVENT_TYPE');
  });

  it('retry all matching stops at the manual-retry limit and says so', async () => {
    const s = await setup({ answer: () => 500, dispatcher: { manualRetryLimit: { max: 3, windowMs: 15 * 60_000 } } });
    await s.dispatcher.webhooks.create({ url: s.targetUrl, events: ['*'] });
    for (let index = 0; index < 5; index++) await s.dispatcher.emit(createTestEvent('invoice.sent'));
    await s.dispatcher.runDue();
    const confirm = await s.client.get(`${BASE}/deliveries/retry?status=retrying`);
    expect(confirm.text).toContain('<strong id="match-count">5</strong>');
    const done = await s.client.post(`${BASE}/deliveries/retry`, { status: 'retrying' });
    expect(done.status).toBe(429);
    expect(done.text).toContain('<strong id="retried-count">3</strong> of 5');
    expect(done.text).toContain('manual-retry limit is reached');
    expect(s.target.requests).toHaveLength(8);
    const again = await s.client.post(`${BASE}/deliveries/${(await s.dispatcher.deliveries.list())[0]!.id}/retry`);
    expect(again.status).toBe(429);
    expect(s.target.requests).toHaveLength(8);
  });
});

describe('the base path', () => {
  it.each([
    ['left out: the root', undefined, '/deliveries', '/'],
    ['/', '/', '/deliveries', '/'],
    ['with a trailing slash', '/ops/hooks/', '/ops/hooks/deliveries', '/ops/hooks/'],
  ])('%s', async (_name, basePath, path, home) => {
    const board = dashboardFetchHandler({ dispatcher: testDispatcher(), authorize: () => true, ...(basePath === undefined ? {} : { basePath }) });
    const page = await board(new Request(`http://127.0.0.1${path}`));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`href="${home === '/' ? '' : home.slice(0, -1)}/webhooks"`);
    expect((await board(new Request(`http://127.0.0.1${home}`))).status).toBe(200);
  });
});

describe('every adapter serves the same dashboard', () => {
  const listeners = {
    'express 5': async (options: Parameters<typeof dashboard>[0]) => {
      const app = (await import('express')).default();
      app.use(dashboard(options));
      return app as unknown as RequestListener;
    },
    'express 4, mounted with app.use(path)': async (options: Parameters<typeof dashboard>[0]) => {
      const app = (await import('express4')).default();
      app.use(BASE, dashboard(options));
      return app as unknown as RequestListener;
    },
    'node:http': (options: Parameters<typeof dashboardNodeHandler>[0]) => Promise.resolve(dashboardNodeHandler(options)),
    'fetch (served by node:http)': (options: Parameters<typeof dashboardFetchHandler>[0]) => Promise.resolve(fetchListener(dashboardFetchHandler(options))),
  };
  it.each(Object.entries(listeners))('%s: pages, a registration with the CSRF token, a forged one refused', async (_name, listener) => {
    const dispatcher = testDispatcher();
    await withServer(await listener({ dispatcher, authorize: () => true, basePath: BASE }), async (url) => {
      const client = new Client(url);
      const list = await client.get(`${BASE}/webhooks`);
      expect(list.status).toBe(200);
      expect(list.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect((await client.post(`${BASE}/webhooks`, { url: 'http://127.0.0.1:9/hooks', events: 'invoice.*' })).status).toBe(201);
      expect((await client.post(`${BASE}/webhooks`, { url: 'http://127.0.0.1:9/other', events: '*', _csrf: 'D'.repeat(43) })).status).toBe(403);
    });
    expect((await dispatcher.webhooks.list()).map((webhook) => webhook.url)).toEqual(['http://127.0.0.1:9/hooks']);
  });
});

describe('the Fetch adapter', () => {
  it('serves the pages and refuses a forged POST', async () => {
    const dispatcher = testDispatcher();
    const board = dashboardFetchHandler({ dispatcher, authorize: (request) => request.headers.get('x-user') === 'admin', basePath: BASE });
    const page = await board(new Request(`http://127.0.0.1${BASE}/deliveries`, { headers: { 'x-user': 'admin' } }));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect((await board(new Request(`http://127.0.0.1${BASE}/deliveries`))).status).toBe(403);
    const forged = await board(new Request(`http://127.0.0.1${BASE}/webhooks`, { method: 'POST', headers: { 'x-user': 'admin', 'content-type': 'application/x-www-form-urlencoded' }, body: 'url=https://example.com&events=*' }));
    expect(forged.status).toBe(403);
    expect(await dispatcher.webhooks.list()).toEqual([]);
  });
});

describe('the inbox', () => {
  it('refuses to retry an event that is done (NOT_RETRYABLE), and an unknown one is 404', async () => {
    const s = await setup({ inbox: true });
    const event = createTestEvent('customer.deleted');
    expect(await s.receive(event)).toBe(200);
    await s.receiver.inbox.drain();
    await s.client.get(`${BASE}/receiver/inbox/${event.id}`);
    const refused = await s.client.post(`${BASE}/receiver/inbox/${event.id}/retry`);
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('NOT_RETRYABLE');
    expect(await s.receiver.inbox.get(event.id)).toMatchObject({ status: 'done', attempts: 1 });
    expect((await s.client.get(`${BASE}/receiver/inbox/evt_unknown`)).status).toBe(404);
    const listed = await s.client.get(`${BASE}/receiver/inbox?status=done`);
    expect(listed.text).toContain(event.id);
  });
});

describe('the inbox: what a failed run kept', () => {
  it("shows the handler's own error beside the code, in the list and on the event's page", async () => {
    const s = await setup({ inbox: true });
    s.handlers.failing = true;
    const event = createTestEvent('payment.failed');
    expect(await s.receive(event)).toBe(200);
    await s.receiver.inbox.drain();
    const shown = '<code>HANDLER_FAILED</code> Error: the handler is down';
    expect((await s.client.get(`${BASE}/receiver/inbox?status=dead`)).text).toContain(shown);
    expect((await s.client.get(`${BASE}/receiver/inbox/${event.id}`)).text).toContain(shown);
  });
});

describe('registration health (isolation and disabling)', () => {
  it('shows the failure streak, a disabled registration\'s skipped events, and enables it with a replay', async () => {
    let status = 500;
    const s = await setup({ answer: () => status });
    const { webhook } = await oneDelivery(s);
    expect((await s.client.get(`${BASE}/webhooks`)).text).toContain('1 failed in a row');
    await s.client.post(`${BASE}/webhooks/${webhook.id}/status`, { status: 'disabled' });
    expect(await s.dispatcher.webhooks.get(webhook.id)).toMatchObject({ status: 'disabled', disabled_reason: 'manual' });
    const skipped = createTestEvent('invoice.sent');
    await s.dispatcher.emit(skipped);
    await s.dispatcher.runDue();
    const page = await s.client.get(`${BASE}/webhooks/${webhook.id}`);
    expect(page.text).toContain('1 events skipped');
    expect(page.text).toContain('Enable and send the 1 skipped events');
    status = 200;
    const enabled = await s.client.post(`${BASE}/webhooks/${webhook.id}/status`, { status: 'active', replay: '1' });
    expect(enabled.text).toContain('queued to it again');
    await s.dispatcher.runDue();
    expect(s.target.eventIds()).toContain(skipped.id);
    expect(await s.dispatcher.webhooks.get(webhook.id)).toMatchObject({ status: 'active', skipped_events: 0 });
  });
});

describe('the registrations page', () => {
  it('pages by 50 with a cursor that holds while more are registered; the overview counts them all', async () => {
    const s = await setup();
    for (let index = 0; index < 55; index++) await s.dispatcher.webhooks.create({ url: `${s.targetUrl}/n${index}`, events: ['*'] });
    const first = (await s.client.get(`${BASE}/webhooks`)).text;
    expect(first).toContain('50 of 55 registrations on this page');
    expect(first).toContain(`${s.targetUrl}/n0<`);
    expect(first).not.toContain(`${s.targetUrl}/n50<`);
    const next = /href="([^"]+\/webhooks\?cursor=[^"]+)" rel="next"/.exec(first)![1]!.replaceAll('&amp;', '&');
    await s.dispatcher.webhooks.create({ url: `${s.targetUrl}/late`, events: ['*'] });
    const second = (await s.client.get(next)).text;
    expect([...second.matchAll(/<td class="registration"><a href="[^"]+">([^<]+)<\/a>/g)].map((match) => match[1])).toEqual([
      ...[50, 51, 52, 53, 54].map((index) => `${s.targetUrl}/n${index}`),
      `${s.targetUrl}/late`,
    ]);
    expect(second).toContain('← First page');
    expect(second).not.toContain('rel="next"');
    // A cursor edited by hand starts over, it does not fail.
    expect((await s.client.get(`${BASE}/webhooks?cursor=nonsense`)).text).toContain('50 of 56 registrations on this page');
    expect((await s.client.get(`${BASE}/`)).text).toContain('<span class="count">56</span>registrations');
  });
});
