import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../../src/events/catalog.js';
import { createTestEvent } from '../../../src/testing/index.js';
import { BASE, setup } from '../fixtures.js';
import { expectAccessible, openPage, useBrowser } from './chromium.js';
import { screenshot } from './screenshots.js';

const browser = useBrowser();

/*
 * The README's picture of the dashboard: the overview, as it is now, after a morning's traffic —
 * two registrations, a dozen events sent (those of one type answered 500, so they retry), events
 * received and one quarantined. Taken of whatever the overview shows (UPDATE_SCREENSHOTS=1 writes
 * docs/images/dashboard-readme.png), so that it follows the overview as it changes.
 */
describe("the README's screenshot of the dashboard", () => {
  it('the overview after sending and receiving: renders without errors, accessible', async () => {
    const s = await setup({ answer: (request) => (request.body.includes('"type":"invoice.overdue"') ? 500 : 204) });
    await s.dispatcher.webhooks.create({ url: s.targetUrl, events: ['*'] });
    await s.dispatcher.webhooks.create({ url: `${s.targetUrl}/bookkeeping`, events: ['invoice.*', 'payment.*'] });
    const sent = EVENT_TYPES.filter((type) => type.startsWith('invoice.') || type.startsWith('payment.') || type.startsWith('customer.'));
    for (const type of sent) await s.dispatcher.emit(createTestEvent(type));
    await s.dispatcher.runDue();
    for (const type of EVENT_TYPES.slice(0, 8)) expect(await s.receive(createTestEvent(type))).toBe(200);
    expect(await s.receive({ ...createTestEvent('invoice.paid'), data: { object: { amount: 'twelve' } } })).toBe(422);
    expect(s.target.requests.length).toBeGreaterThan(sent.length);

    const { page, watch } = await openPage(browser());
    const response = await page.goto(`${s.origin}${BASE}/`);
    expect(response?.status()).toBe(200);
    await page.waitForLoadState('load');
    await expect(page.locator('main').isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    expect(watch).toEqual({ dialogs: [], errors: [] });
    // The picture is as tall as the overview, so that the README shows no empty screen below it.
    const height = await page.evaluate<number>(`Math.ceil(Math.max(...[...document.querySelectorAll('main *')].map((element) => element.getBoundingClientRect().bottom))) + 24`);
    await page.setViewportSize({ width: 1100, height: Math.min(Math.max(height, 300), 1200) });
    await screenshot(page, 'readme');
  });
});
