import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createTestEvent } from '../../../src/testing/index.js';
import { FakeClock } from '../../helpers/clock.js';
import { BASE, setup } from '../fixtures.js';
import { openPage, useBrowser } from './chromium.js';

/*
 * The layout a user sees, measured in Chromium: the registrations table fits a 1280 px window
 * with long URLs, many event patterns and custom headers; the labels of a delivery's timeline
 * never overlap, at 1280 and at 375 px, even when attempts crowd one spot of the axis.
 */
const browser = useBrowser();

interface Box {
  text: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** The rendered boxes of the timeline's texts (a string: this file is compiled without the DOM's types). */
function labelBoxes(page: Page): Promise<Box[]> {
  return page.evaluate<Box[]>(`[...document.querySelectorAll('.timeline svg text')].map((text) => {
    const box = text.getBoundingClientRect();
    return { text: text.textContent, left: box.left, right: box.right, top: box.top, bottom: box.bottom };
  })`);
}

const overlap = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

describe('the layout', () => {
  it('the registrations table fits a 1280 px window', async () => {
    const s = await setup({ answer: (request) => (request.path.includes('tenants') ? 500 : 200) });
    // Long URLs (no break in a path segment), many event patterns, long custom header names.
    const long = `${s.targetUrl}/api/v2/tenants/7f3a9c1e52b44d0e9a610c2f3b8d4e77/integrations/accounting/webhooks?source=platform&format=json`;
    await s.dispatcher.webhooks.create({
      url: long,
      events: ['invoice.created', 'invoice.sent', 'invoice.paid', 'invoice.overdue', 'payment.received', 'payment.refunded', 'customer.created', 'customer.updated', 'uva.submitted', 'uva.confirmed', 'uva.rejected'],
      headers: { 'x-tenant-identifier-for-the-erp': '7f3a9c1e-52b4-4d0e-9a61-0c2f3b8d4e77', 'x-another-rather-long-header-name': 'v' },
    });
    await s.dispatcher.webhooks.create({ url: `${s.targetUrl}/short`, events: ['*'] });
    for (const type of ['invoice.paid', 'customer.created'] as const) await s.dispatcher.emit(createTestEvent(type));
    await s.dispatcher.runDue();
    const fixture = { origin: s.origin };
    const { page } = await openPage(browser());
    await page.goto(`${fixture.origin}${BASE}/webhooks`);
    const widths = await page.evaluate<{ page: number; table: number }>(`({ page: document.documentElement.scrollWidth, table: document.querySelector('main table').getBoundingClientRect().right })`);
    if (process.env.LAYOUT_SHOT) await page.screenshot({ path: process.env.LAYOUT_SHOT, fullPage: true });
    expect(widths.page).toBeLessThanOrEqual(1280);
    expect(widths.table).toBeLessThanOrEqual(1280);
  });

  it.each([1280, 375])("a delivery's timeline labels never overlap at %i px, with attempts crowding one spot", async (width) => {
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
    const [delivery] = await s.dispatcher.deliveries.list({ event_id: event.id });
    // Three manual retries a second apart, right after the fourth attempt.
    for (const second of [1, 2, 3]) {
      clock.set(start + 36 * 60_000 + second * 1_000);
      await s.dispatcher.deliveries.retry(delivery!.id);
    }
    clock.set(start + 40 * 60_000);
    const { context, page } = await openPage(browser());
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${s.origin}${BASE}/deliveries/${delivery!.id}`);
    expect(await page.locator('.timeline g[data-kind="attempt"]').count()).toBe(7);
    const boxes = await labelBoxes(page);
    expect(boxes.length).toBeGreaterThanOrEqual(5);
    for (const [index, a] of boxes.entries()) {
      for (const b of boxes.slice(index + 1)) expect(overlap(a, b), `"${a.text}" and "${b.text}"`).toBe(false);
    }
    await context.close();
  });
});
