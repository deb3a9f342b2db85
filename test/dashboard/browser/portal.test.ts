import express from 'express';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createPortalLink, portal } from '../../../src/dashboard/index.js';
import { verifySignature } from '../../../src/index.js';
import { Receiver, testDispatcher } from '../../dispatcher/fixtures.js';
import { close, listen } from '../../helpers/server.js';
import { PORTAL_BASE, PORTAL_KEY } from '../portal-fixtures.js';
import { expectAccessible, openPage, useBrowser } from './chromium.js';
import { screenshot } from './screenshots.js';

/*
 * The portal's main journeys in headless Chromium: a platform's app (Express) mounts the portal
 * and shows it in an iframe; the business opens its link, registers, sends a test, reads the
 * delivery, retries and rotates the secret. axe scans every page.
 */
const browser = useBrowser();

/** The platform's app: the portal under PORTAL_BASE, and a settings page that frames a fresh link. */
async function platformApp(frameAncestors: 'self' | 'none') {
  const dispatcher = testDispatcher();
  const target = new Receiver();
  const targetServer = await listen(target.listener);
  onTestFinished(() => close(targetServer.server));
  const app = express();
  let origin = '';
  // A platform's app has its own icon; the portal serves none of its own (it shows the platform's look).
  app.get('/favicon.ico', (_req, res) => res.status(204).end());
  app.get('/settings', (_req, res) => {
    const src = createPortalLink({ key: PORTAL_KEY, business_id: 'biz_a', baseUrl: `${origin}${PORTAL_BASE}` });
    res.send(`<!doctype html><html lang="en"><head><title>Settings</title></head><body><main><h1>Settings</h1><iframe title="Webhooks" src="${src}" width="1200" height="800"></iframe></main></body></html>`);
  });
  const server = await listen(app);
  onTestFinished(() => close(server.server));
  origin = server.url;
  app.use(portal({ dispatcher, key: PORTAL_KEY, basePath: PORTAL_BASE, logger: false, theme: { title: 'Example Books', colors: { accent: '#5b2a86' } }, ...(frameAncestors === 'self' ? { frameAncestors: [origin] } : {}) }));
  return { dispatcher, target, targetUrl: `${targetServer.url}/hooks`, origin };
}

describe('the portal in Chromium', () => {
  it('opens from a link, registers, sends a test, reads the delivery, retries and rotates the secret; axe finds nothing', async () => {
    const s = await platformApp('self');
    const { page, watch } = await openPage(browser());
    await page.goto(createPortalLink({ key: PORTAL_KEY, business_id: 'biz_a', baseUrl: `${s.origin}${PORTAL_BASE}` }));
    expect(new URL(page.url()).search).toBe('');
    await page.getByRole('heading', { name: 'Registrations' }).waitFor();
    await expectAccessible(page);
    await page.getByRole('link', { name: 'Register a webhook' }).click();
    await expectAccessible(page);
    await page.getByLabel(/Receiver URL/).fill(s.targetUrl);
    await page.getByLabel('invoice.* (all)').check();
    await screenshot(page, 'portal-register', { file: 'portal-register.png' });
    await page.getByRole('button', { name: 'Register' }).click();
    const secret = (await page.locator('#secret').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    const [webhook] = await s.dispatcher.webhooks.list();
    expect(webhook).toMatchObject({ url: s.targetUrl, business_id: 'biz_a' });
    await expectAccessible(page);

    await page.getByRole('button', { name: 'Send a test delivery' }).click();
    await page.getByText('A test delivery was sent').waitFor();
    expect(await page.locator('section.attempt').first().textContent()).toContain('204');
    await expectAccessible(page);
    await screenshot(page, 'portal-delivery', { file: 'portal-delivery.png' });
    await page.getByRole('button', { name: 'Retry now' }).click();
    await page.getByText('The delivery was retried now').waitFor();
    expect(s.target.requests).toHaveLength(2);

    await page.goto(`${s.origin}${PORTAL_BASE}/webhooks/${webhook!.id}`);
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    const rotated = (await page.locator('#secret').textContent())!;
    expect(rotated).not.toBe(secret);
    await s.dispatcher.sendTest(webhook!.id);
    const signed = s.target.requests[2]!;
    expect(() => verifySignature({ payload: signed.body, signature: String(signed.headers['x-svc-signature']), timestamp: String(signed.headers['x-svc-timestamp']), secret: rotated })).not.toThrow();
    await expectAccessible(page);

    await page.goto(`${s.origin}${PORTAL_BASE}/event-types`);
    await expectAccessible(page);
    await page.goto(`${s.origin}${PORTAL_BASE}/deliveries`);
    await expectAccessible(page);
    await screenshot(page, 'portal-deliveries', { file: 'portal-deliveries.png' });
    expect(watch).toEqual({ dialogs: [], errors: [] });
  });

  it('shows in the iframe of a listed origin, and the theme applies', async () => {
    const s = await platformApp('self');
    const { page, watch } = await openPage(browser());
    await page.goto(`${s.origin}/settings`);
    const frame = page.frameLocator('iframe[title="Webhooks"]');
    await frame.getByRole('heading', { name: 'Registrations' }).waitFor();
    const accent = await frame
      .locator('a.button')
      .first()
      .evaluate((element) => (globalThis as unknown as { getComputedStyle(node: unknown): { backgroundColor: string } }).getComputedStyle(element).backgroundColor);
    expect(accent).toBe('rgb(91, 42, 134)');
    await screenshot(page, 'portal-embedded', { file: 'portal-embedded.png' });
    expect(watch.dialogs).toEqual([]);
  });

  it('refuses to be framed when no origin is listed', async () => {
    const s = await platformApp('none');
    const { page } = await openPage(browser());
    await page.goto(`${s.origin}/settings`);
    await page.waitForLoadState('load');
    // A refused frame shows the browser's own error page (chrome-error://…), never the portal.
    const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
    expect(frame?.url() ?? '').not.toContain(PORTAL_BASE);
    const heading = frame && frame.url().startsWith(s.origin) ? await frame.locator('h1').count() : 0;
    expect(heading).toBe(0);
  });
});
