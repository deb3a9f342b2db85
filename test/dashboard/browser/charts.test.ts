import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chartFixture, expectedDeliveryBuckets, fixtureRange } from '../chart-fixture.js';
import { createTestEvent } from '../../../src/testing/index.js';
import { FakeClock } from '../../helpers/clock.js';
import { BASE, setup } from '../fixtures.js';
import { expectAccessible, openPage, useBrowser } from './chromium.js';
import { screenshot } from './screenshots.js';

/*
 * The overview's charts in headless Chromium, over seven days of deliveries and received events
 * seeded at injected times (../chart-fixture.ts) and a dashboard on the same clock: the numbers the
 * SVG carries and its table say are what the stores hold, a bar's link leads to exactly the
 * deliveries it counts, and the page passes axe in the light and the dark colour scheme.
 */
const browser = useBrowser();

const HOUR = 3_600_000;

interface Bar {
  outcome: string;
  count: number;
  from: string;
  to: string;
}

/** The bars of a chart, read in the page from their data attributes (a string: this file is compiled without the DOM's types). */
function barsOf(page: Page, chart: string): Promise<Bar[]> {
  return page.evaluate<Bar[]>(`[...document.querySelectorAll('#${chart} rect.bar')].map((rect) => ({
    outcome: rect.getAttribute('data-outcome'), count: Number(rect.getAttribute('data-count')), from: rect.getAttribute('data-from'), to: rect.getAttribute('data-to') }))`);
}

/** The cells of the table behind the chart's <details>, as numbers, row by row. */
function tableOf(page: Page, chart: string): Promise<number[][]> {
  return page.evaluate<number[][]>(`[...document.querySelectorAll('#${chart} details tbody tr')].map((tr) =>
    [...tr.querySelectorAll('td')].map((td) => Number(td.textContent.replaceAll(',', ''))))`);
}

describe('the overview charts', () => {
  it("7 days: the deliveries chart's bars and its table are the store's counts; a bar leads to its deliveries; axe passes", async () => {
    const fixture = await chartFixture();
    const { page, watch } = await openPage(browser());
    await page.goto(`${fixture.origin}${BASE}/?range=7d`);
    await expectAccessible(page);
    await screenshot(page, 'overview');

    const bars = await barsOf(page, 'chart-deliveries');
    const want = expectedDeliveryBuckets(fixture.deliveries, 6 * HOUR, 28);
    expect(new Map(bars.map((bar) => [`${Date.parse(bar.from)}:${bar.outcome}`, bar.count]))).toEqual(want);

    // The text alternative says the same: the table behind <details>, once opened.
    await page.getByText('the numbers as a table').first().click();
    const table = page.locator('#chart-deliveries details table');
    await expect.poll(() => table.isVisible()).toBe(true);
    const rows = await tableOf(page, 'chart-deliveries');
    const { from } = fixtureRange(6 * HOUR, 28);
    expect(rows).toHaveLength(28);
    rows.forEach((cells, index) => {
      const start = from + index * 6 * HOUR;
      expect(cells, new Date(start).toISOString()).toEqual([
        want.get(`${start}:delivered`) ?? 0,
        want.get(`${start}:retrying`) ?? 0,
        want.get(`${start}:finally_failed`) ?? 0,
        (want.get(`${start}:delivered`) ?? 0) + (want.get(`${start}:retrying`) ?? 0) + (want.get(`${start}:finally_failed`) ?? 0),
      ]);
    });

    // The outage's tallest finally-failed bar, followed by a click.
    const failed = bars.filter((bar) => bar.outcome === 'finally_failed').reduce((a, b) => (b.count > a.count ? b : a));
    await page.locator(`#chart-deliveries rect[data-outcome="finally_failed"][data-from="${failed.from}"]`).click();
    await page.waitForURL(/\/deliveries\?/);
    const url = new URL(page.url());
    expect(url.searchParams.get('status')).toBe('finally_failed');
    expect(Date.parse(`${url.searchParams.get('from')}Z`)).toBe(Date.parse(failed.from));
    expect(Date.parse(`${url.searchParams.get('to')}Z`)).toBe(Date.parse(failed.to));
    expect(await page.locator('.pager').first().textContent()).toContain(`of ${failed.count} deliveries`);
    const listed = fixture.deliveries.filter((delivery) => delivery.status === 'finally_failed' && delivery.createdAt >= Date.parse(failed.from) && delivery.createdAt < Date.parse(failed.to));
    expect(await page.locator('main tbody tr').count()).toBe(listed.length);
    await expectAccessible(page);
    expect(watch).toEqual({ dialogs: [], errors: [] });
  });

  it('switches to the last 24 hours by its link: 24 hourly buckets; the receiving chart is there too; dark colour scheme passes axe', async () => {
    const fixture = await chartFixture();
    const { context, page } = await openPage(browser());
    await page.goto(`${fixture.origin}${BASE}/?range=7d`);
    await page.getByRole('link', { name: 'last 24 hours' }).click();
    await page.waitForURL(/range=24h/);
    const buckets = await page.locator('#chart-deliveries svg').getAttribute('data-bucket-ms');
    expect(Number(buckets)).toBe(HOUR);
    expect(await page.locator('#chart-deliveries details tbody tr').count()).toBe(24);
    const bars = await barsOf(page, 'chart-deliveries');
    expect(new Map(bars.map((bar) => [`${Date.parse(bar.from)}:${bar.outcome}`, bar.count]))).toEqual(expectedDeliveryBuckets(fixture.deliveries, HOUR, 24));
    expect(await page.locator('#chart-received rect.bar').count()).toBeGreaterThan(0);
    expect(await page.locator('#chart-received title').first().textContent()).toBe('Received events per hour, last 24 hours');
    await expectAccessible(page);
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(page);
    await context.close();
  });

  it("a registration's health: the list and its page pass axe; the sparkline's label says its numbers", async () => {
    const fixture = await chartFixture();
    const { page } = await openPage(browser());
    await page.goto(`${fixture.origin}${BASE}/webhooks`);
    await expectAccessible(page);
    await page.getByRole('link', { name: 'https://billing.example/hooks' }).click();
    await page.getByRole('heading', { name: 'Health, last 24 hours' }).waitFor();
    const label = await page.locator('.health svg.spark').getAttribute('aria-label');
    const attempts = await page.evaluate<number>(`[...document.querySelectorAll('.health svg.spark g')].reduce((sum, g) => sum + Number(g.getAttribute('data-attempts')), 0)`);
    expect(label).toContain(`last 24 hours: ${attempts} in all`);
    await expectAccessible(page);
    await page.locator('.health').scrollIntoViewIfNeeded();
    await screenshot(page, 'registration-health', { element: '.health' });
  });

  it("a delivery's timeline: four failed attempts and three planned ones on the axis, the summary, axe passes", async () => {
    const clock = new FakeClock();
    const start = clock.now();
    const s = await setup({ answer: () => 503, dispatcher: { clock: clock.now }, clock: clock.now });
    await s.dispatcher.webhooks.create({ url: s.targetUrl, events: ['invoice.*'] });
    const event = createTestEvent('invoice.paid');
    await s.dispatcher.emit(event);
    for (const at of [0, 1, 6, 36]) {
      clock.set(start + at * 60_000);
      await s.dispatcher.runDue();
    }
    clock.set(start + 56 * 60_000);
    const [delivery] = await s.dispatcher.deliveries.list({ event_id: event.id });
    const { page } = await openPage(browser());
    await page.goto(`${s.origin}${BASE}/deliveries/${delivery!.id}`);
    expect(await page.locator('#timeline-summary').textContent()).toBe('Attempt 5 of 7 by the schedule is next, in 1 h 40 min; the last, attempt 7 of 7, in 1 d 9 h if the ones before fail.');
    expect(await page.locator('.timeline g[data-kind="attempt"]').count()).toBe(4);
    expect(await page.locator('.timeline g[data-kind="planned"]').count()).toBe(3);
    await expectAccessible(page);
    await screenshot(page, 'timeline', { element: '.timeline' });
  });
});
