import { describe, expect, it } from 'vitest';
import { createTestEvent } from '../../../src/testing/index.js';
import { BASE, oneDelivery, setup } from '../fixtures.js';
import { expectAccessible, openPage, useBrowser } from './chromium.js';

const browser = useBrowser();

/** Markup an attacker puts into an event: it must render as text, run nothing, open no dialog. */
const SCRIPT = '<script>window.__xss = "script"; alert("script")</script>';
const IMAGE = '"><img src=x onerror="window.__xss = \'img\'; alert(\'img\')">';

describe('hostile content renders inert in Chromium', () => {
  it('in payload fields, response bodies, quarantined payloads and the search box', async () => {
    const s = await setup({ answer: () => ({ status: 500, body: `${SCRIPT}${IMAGE}` }) });
    const { delivery } = await oneDelivery(s, { id: SCRIPT, customer_id: IMAGE, note: `${SCRIPT}${IMAGE}` });
    const invalid = { ...createTestEvent('invoice.paid'), data: { object: { amount: SCRIPT, currency: IMAGE } } };
    expect(await s.receive(invalid)).toBe(422);
    const [quarantined] = await s.receiver.store.quarantine.list();
    const { page, watch } = await openPage(browser());
    for (const path of [`/deliveries/${delivery.id}`, '/deliveries', `/deliveries?q=${encodeURIComponent(IMAGE)}`, '/receiver/quarantine', `/receiver/quarantine/${quarantined!.id}`]) {
      await page.goto(`${s.origin}${BASE}${path}`);
      await page.waitForLoadState('load');
      expect(await page.evaluate(() => (globalThis as { __xss?: string }).__xss), path).toBeUndefined();
      expect(await page.locator('main img, main script').count(), path).toBe(0);
    }
    await page.goto(`${s.origin}${BASE}/deliveries/${delivery.id}`);
    expect(await page.locator('#payload').textContent()).toContain('<script>window.__xss');
    expect(watch).toEqual({ dialogs: [], errors: [] });
  });
});

describe('every view passes axe-core without serious or critical violations', () => {
  it('overview, registrations, deliveries, a delivery, the receiving side and the inbox', async () => {
    const s = await setup({ answer: () => 500 });
    const { delivery, webhook } = await oneDelivery(s);
    await s.receive(createTestEvent('customer.created'));
    const { page } = await openPage(browser());
    const views = ['/', '/webhooks', '/webhooks/new', `/webhooks/${webhook.id}`, '/deliveries', `/deliveries/${delivery.id}`, '/deliveries/retry', '/receiver/events', '/receiver/quarantine', '/receiver/inbox', '/no-such-page'];
    for (const view of views) {
      await page.goto(`${s.origin}${BASE}${view}`);
      await expectAccessible(page);
    }
  });
});
