import { describe, expect, it } from 'vitest';
import { chartFixture } from '../chart-fixture.js';
import { BASE } from '../fixtures.js';
import { expectAccessible, openPage, useBrowser } from './chromium.js';
import { screenshot } from './screenshots.js';

const browser = useBrowser();

/*
 * The README's picture of the dashboard: the overview as it is now, over a week of traffic (two
 * registrations, deliveries delivered, retrying and failed, an outage on day 3, events received;
 * ../chart-fixture.ts). Taken of whatever the overview shows (UPDATE_SCREENSHOTS=1 writes
 * docs/images/dashboard-readme.png), so that it follows the overview as it changes.
 */
describe("the README's screenshot of the dashboard", () => {
  it('the overview of a week: renders without errors, accessible', async () => {
    const fixture = await chartFixture();
    const { page, watch } = await openPage(browser());
    const response = await page.goto(`${fixture.origin}${BASE}/?range=7d`);
    expect(response?.status()).toBe(200);
    await page.waitForLoadState('load');
    await expect(page.locator('main').isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    expect(watch).toEqual({ dialogs: [], errors: [] });
    // A short viewport and the full page: the picture is as tall as the overview, no empty screen below it.
    await page.setViewportSize({ width: 1100, height: 400 });
    await screenshot(page, 'readme', { fullPage: true });
  });
});
