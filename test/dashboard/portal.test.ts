import { describe, expect, it } from 'vitest';
import { createPortalLink, portalNodeHandler, PORTAL_SESSION_MS } from '../../src/dashboard/index.js';
import { EVENT_TYPES } from '../../src/events/catalog.js';
import { close, listen } from '../helpers/server.js';
import { testDispatcher } from '../dispatcher/fixtures.js';
import { Client } from './fixtures.js';
import { PORTAL_BASE, PORTAL_KEY, portalSetup } from './portal-fixtures.js';

/** The raw answer to opening a link (no redirect followed), with its Set-Cookie lines. */
async function openRaw(link: string, headers: Record<string, string> = {}) {
  const response = await fetch(link, { redirect: 'manual', headers: { accept: 'text/html', ...headers } });
  return { status: response.status, location: response.headers.get('location'), cookies: response.headers.getSetCookie(), headers: response.headers, text: await response.text() };
}

async function openJson(link: string) {
  const response = await fetch(link, { redirect: 'manual', headers: { accept: 'application/json' } });
  return { status: response.status, body: (await response.json()) as { error: { code: string } } };
}

describe('portal links', () => {
  it('open the portal once: the token leaves the URL and becomes an HttpOnly, SameSite session cookie on the portal path', async () => {
    const s = await portalSetup();
    const link = s.link('biz_a');
    expect(link).toMatch(new RegExp(`^${s.origin}${PORTAL_BASE}/open\\?portal_token=link\\.`));
    const opened = await openRaw(link);
    expect(opened.status).toBe(303);
    expect(opened.location).toBe(`${PORTAL_BASE}/webhooks`);
    expect(opened.headers.get('referrer-policy')).toBe('no-referrer');
    const session = opened.cookies.find((line) => line.startsWith('acct_portal_session='))!;
    expect(session).toContain(`Path=${PORTAL_BASE};`);
    expect(session).toContain('HttpOnly');
    expect(session).toContain('SameSite=Lax');
    expect(session).not.toContain('Secure');
    expect(session).toContain(`Max-Age=${PORTAL_SESSION_MS / 1000}`);
    const page = await fetch(`${s.origin}${PORTAL_BASE}/webhooks`, { headers: { accept: 'text/html', cookie: session.split(';')[0]! } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h1>Registrations</h1>');
  });

  it('set the cookie Secure when the request came over https', async () => {
    const s = await portalSetup();
    const opened = await openRaw(s.link('biz_a'), { 'x-forwarded-proto': 'https' });
    expect(opened.cookies.every((line) => line.includes('; Secure'))).toBe(true);
  });

  it('refuse a reused link with a page that says so and what to do', async () => {
    const s = await portalSetup();
    const link = s.link('biz_a');
    expect((await openRaw(link)).status).toBe(303);
    const again = await openRaw(link);
    expect(again.status).toBe(410);
    expect(again.cookies).toEqual([]);
    expect(again.text).toContain('The link was used already');
    expect(again.text).toContain('makes a fresh link');
    expect((await openJson(link)).body.error.code).toBe('PORTAL_LINK_USED');
  });

  it('refuse an expired link', async () => {
    let now = Date.parse('2026-12-01T10:00:00Z');
    const s = await portalSetup({ portal: { clock: () => now } });
    const link = s.link('biz_a', { expiresInMs: 60_000, clock: () => now });
    now += 60_000;
    const opened = await openRaw(link);
    expect(opened.status).toBe(410);
    expect(opened.text).toContain('The link has expired');
    expect((await openJson(link)).body.error.code).toBe('PORTAL_LINK_EXPIRED');
    now -= 1;
    expect((await openRaw(link)).status).toBe(303);
  });

  it('refuse a tampered link: another business, access or expiry in the token, a changed MAC, another key', async () => {
    const s = await portalSetup();
    const link = new URL(s.link('biz_a', { access: 'read' }));
    const token = link.searchParams.get('portal_token')!;
    const parts = token.split('.');
    const variants = [
      [parts[0], Buffer.from('biz_b').toString('base64url'), ...parts.slice(2)],
      [parts[0], parts[1], 'manage', ...parts.slice(3)],
      [...parts.slice(0, 4), 'zzzzzzzz', ...parts.slice(5)],
      [...parts.slice(0, 6), `${parts[6]!.slice(0, -1)}${parts[6]!.endsWith('A') ? 'B' : 'A'}`],
      [...parts.slice(0, 6), parts[6]!.slice(0, -1)],
      ['session', ...parts.slice(1)],
    ].map((variant) => variant.join('.'));
    for (const variant of [...variants, '', 'x'.repeat(5000), token.replace('link.', 'link..')]) {
      const tampered = new URL(link);
      tampered.searchParams.set('portal_token', variant);
      const answer = await openJson(tampered.toString());
      expect(answer.status, variant).toBe(403);
      expect(answer.body.error.code).toBe('PORTAL_LINK_INVALID');
    }
    const otherKey = await openRaw(s.link('biz_a', { key: 'another-key-0123456789abcdefghijklmnopq' }));
    expect(otherKey.status).toBe(403);
    expect(otherKey.text).toContain('The link is not valid');
    // The original still works: refusals used nothing up.
    expect((await openRaw(link.toString())).status).toBe(303);
  });

  it('refuse a link made for another path', async () => {
    const s = await portalSetup();
    const link = s.link('biz_a', { path: '/other/portal' }).replace('/other/portal/open', `${PORTAL_BASE}/open`);
    const opened = await openRaw(link);
    expect(opened.status).toBe(403);
    expect(opened.text).toContain('made for another portal');
  });

  it('checks its options when made', () => {
    const baseUrl = 'https://app.example.com/settings/webhooks';
    expect(() => createPortalLink({ key: 'short', business_id: 'biz_a', baseUrl })).toThrow(/key/);
    expect(() => createPortalLink({ key: PORTAL_KEY, business_id: 'biz a', baseUrl })).toThrow(/business_id/);
    expect(() => createPortalLink({ key: PORTAL_KEY, business_id: 'biz_a', baseUrl: 'ftp://x' })).toThrow(/baseUrl/);
    expect(() => createPortalLink({ key: PORTAL_KEY, business_id: 'biz_a', baseUrl, expiresInMs: 8 * 86_400_000 })).toThrow(/expiresInMs/);
    expect(() => createPortalLink({ key: PORTAL_KEY, business_id: 'biz_a', baseUrl, extra: 1 } as never)).toThrow(/extra/);
    const url = new URL(createPortalLink({ key: PORTAL_KEY, business_id: 'biz_a', baseUrl: `${baseUrl}/` }));
    expect(url.pathname).toBe('/settings/webhooks/open');
  });
});

describe('portal sessions', () => {
  it('a request without a session gets 401 with a page that says how to open the portal', async () => {
    const s = await portalSetup();
    const answer = await new Client(s.origin).get(`${PORTAL_BASE}/webhooks`);
    expect(answer.status).toBe(401);
    expect(answer.text).toContain('Open the portal from your account');
    const json = await fetch(`${s.origin}${PORTAL_BASE}/deliveries`, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(401);
    expect(((await json.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
  });

  it('rotating the key ends every session', async () => {
    const s = await portalSetup();
    const opened = await openRaw(s.link('biz_a'));
    const cookie = opened.cookies.map((line) => line.split(';')[0]).join('; ');
    const rotated = await listen(portalNodeHandler({ dispatcher: s.dispatcher, key: 'the-next-key-0123456789abcdefghijklmnop', basePath: PORTAL_BASE, logger: false }));
    try {
      const before = await fetch(`${s.origin}${PORTAL_BASE}/webhooks`, { headers: { accept: 'text/html', cookie } });
      expect(before.status).toBe(200);
      const after = await fetch(`${rotated.url}${PORTAL_BASE}/webhooks`, { headers: { accept: 'text/html', cookie } });
      expect(after.status).toBe(401);
    } finally {
      await close(rotated.server);
    }
  });

  it('a session ends after PORTAL_SESSION_MS', async () => {
    let now = Date.parse('2026-12-01T10:00:00Z');
    const s = await portalSetup({ portal: { clock: () => now } });
    const client = new Client(s.origin);
    expect((await client.get(s.link('biz_a', { clock: () => now }).slice(s.origin.length))).status).toBe(200);
    now += PORTAL_SESSION_MS - 1;
    expect((await client.get(`${PORTAL_BASE}/webhooks`)).status).toBe(200);
    now += 1;
    expect((await client.get(`${PORTAL_BASE}/webhooks`)).status).toBe(401);
  });

  it("a session cookie is not a link, and a link's token is not a session cookie", async () => {
    const s = await portalSetup();
    const token = new URL(s.link('biz_a')).searchParams.get('portal_token')!;
    const asCookie = await fetch(`${s.origin}${PORTAL_BASE}/webhooks`, { headers: { accept: 'text/html', cookie: `acct_portal_session=${token}` } });
    expect(asCookie.status).toBe(401);
    const opened = await openRaw(s.link('biz_a'));
    const session = opened.cookies.find((line) => line.startsWith('acct_portal_session='))!.split(';')[0]!.split('=')[1]!;
    expect((await openJson(`${s.origin}${PORTAL_BASE}/open?portal_token=${session}`)).body.error.code).toBe('PORTAL_LINK_INVALID');
  });
});

describe('read access', () => {
  it('shows no action and the server refuses every one', async () => {
    const s = await portalSetup();
    const client = await s.signedIn('biz_a', 'read');
    const list = await client.get(`${PORTAL_BASE}/webhooks`);
    expect(list.status).toBe(200);
    expect(list.text).toContain('read only');
    expect(list.text).not.toContain('Register a webhook');
    expect(list.text).not.toContain('<form');
    for (const path of ['/webhooks/new', '/deliveries/retry']) expect((await client.get(`${PORTAL_BASE}${path}`)).status).toBe(403);
    for (const path of ['/webhooks', '/webhooks/wh_x', '/webhooks/wh_x/test', '/webhooks/wh_x/rotate-secret', '/webhooks/wh_x/status', '/webhooks/wh_x/delete', '/deliveries/retry', '/deliveries/dl_x/retry']) {
      const refused = await client.post(`${PORTAL_BASE}${path}`, { url: s.targetUrl, events: '*', status: 'disabled' });
      expect(refused.status, path).toBe(403);
      expect(refused.text).toContain('read access');
    }
    expect(await s.dispatcher.webhooks.list()).toEqual([]);
  });
});

describe('embedding', () => {
  it('cannot be framed by default, keeps the strict CSP and runs no inline script', async () => {
    const s = await portalSetup();
    const client = await s.signedIn('biz_a');
    const page = await client.get(`${PORTAL_BASE}/webhooks`);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    for (const tag of page.text.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/ src="/);
    expect(page.text).not.toMatch(/\sstyle="|\son[a-z]+="/);
  });

  it('lets the listed origins frame it, with the theme, title and logo', async () => {
    const s = await portalSetup({
      portal: {
        frameAncestors: ['https://app.example.com', 'https://admin.example.com'],
        theme: { title: 'Example Books webhooks', logoUrl: 'https://cdn.example.com/logo.svg', colors: { accent: '#5b2a86', ink: 'rgb(20 20 20)' } },
      },
    });
    const client = await s.signedIn('biz_a');
    const page = await client.get(`${PORTAL_BASE}/webhooks`);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain('frame-ancestors https://app.example.com https://admin.example.com;');
    expect(csp).toContain("img-src 'self' https://cdn.example.com;");
    expect(page.headers.get('x-frame-options')).toBeNull();
    expect(page.text).toContain('<title>Registrations · Example Books webhooks</title>');
    expect(page.text).toContain('<img class="logo" src="https://cdn.example.com/logo.svg"');
    expect(page.text).toContain(`<link rel="stylesheet" href="${PORTAL_BASE}/assets/portal-theme.css">`);
    const theme = await client.get(`${PORTAL_BASE}/assets/portal-theme.css`);
    expect(theme.headers.get('content-type')).toContain('text/css');
    expect(theme.text).toContain(':root { --accent: #5b2a86; --ink: rgb(20 20 20); }');
  });

  it('refuses options it cannot use safely', () => {
    const dispatcher = testDispatcher();
    const base = { dispatcher, key: PORTAL_KEY };
    expect(() => portalNodeHandler({ ...base, key: 'short' })).toThrow(/key/);
    expect(() => portalNodeHandler({ ...base, frameAncestors: ['https://app.example.com/path'] })).toThrow(/frameAncestors/);
    expect(() => portalNodeHandler({ ...base, frameAncestors: ["'self' *"] })).toThrow(/frameAncestors/);
    expect(() => portalNodeHandler({ ...base, theme: { colors: { accent: 'red; } body { display: none' } } })).toThrow(/accent/);
    expect(() => portalNodeHandler({ ...base, theme: { logoUrl: 'javascript:alert(1)' } })).toThrow(/logoUrl/);
    expect(() => portalNodeHandler({ ...base, theme: { logoUrl: '//evil.example/logo.svg' } })).toThrow(/logoUrl/);
    expect(() => portalNodeHandler({ ...base, authorize: () => true } as never)).toThrow(/authorize/);
    expect(() => portalNodeHandler({ key: PORTAL_KEY } as never)).toThrow(/dispatcher/);
  });
});

describe('what a business sees', () => {
  it("a registration that is not the business's (another's, platform-wide, unowned) is not listed and its id is the same 404 as a missing one", async () => {
    const s = await portalSetup();
    const foreign = await s.dispatcher.webhooks.create({ url: `${s.targetUrl}?marker=FOREIGN_MARKER`, events: ['*'] });
    const client = await s.signedIn('biz_a');
    const list = await client.get(`${PORTAL_BASE}/webhooks`);
    expect(list.text).not.toContain(foreign.id);
    expect(list.text).not.toContain('FOREIGN_MARKER');
    const missing = 'wh_doesnotexist000000000';
    const pad = (id: string) => id.padEnd(foreign.id.length, '0').slice(0, foreign.id.length);
    const other = pad(missing);
    for (const path of ['/webhooks/:id']) {
      const a = await client.get(`${PORTAL_BASE}${path.replace(':id', foreign.id)}`);
      const b = await client.get(`${PORTAL_BASE}${path.replace(':id', other)}`);
      expect(a.status).toBe(404);
      expect(b.status).toBe(404);
      expect(a.text.replaceAll(foreign.id, 'ID')).toBe(b.text.replaceAll(other, 'ID'));
      expect(a.text).not.toContain('FOREIGN_MARKER');
    }
    for (const action of ['/test', '/rotate-secret', '/status', '/delete', '']) {
      const answer = await client.post(`${PORTAL_BASE}/webhooks/${foreign.id}${action}`, { status: 'disabled', url: s.targetUrl, events: '*' });
      expect(answer.status, action).toBe(404);
    }
    const deliveries = await client.get(`${PORTAL_BASE}/deliveries?webhook_id=${foreign.id}`);
    expect(deliveries.status).toBe(404);
    expect(await s.dispatcher.webhooks.get(foreign.id)).toMatchObject({ status: 'active', url: foreign.url });
  });

  it('reads the event catalog: every type with its schema and a sample', async () => {
    const s = await portalSetup();
    const client = await s.signedIn('biz_a', 'read');
    const page = await client.get(`${PORTAL_BASE}/event-types`);
    expect(page.status).toBe(200);
    for (const type of EVENT_TYPES) expect(page.text).toContain(`<code>${type}</code>`);
    expect(page.text).toContain('Schema of <code>data.object</code>');
    expect(page.text).toContain('&quot;type&quot;: &quot;invoice.paid&quot;');
  });
});
