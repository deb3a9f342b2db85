import { describe, expect, it } from 'vitest';
import { durationText } from '../../src/dashboard/duration.js';
import { chartFixture, fixtureRange } from './chart-fixture.js';
import { BASE, Client } from './fixtures.js';

const HOUR = 3_600_000;

/** The nearest-rank percentile of `values`. */
function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(share * sorted.length) - 1]!;
}

describe('health per registration', () => {
  it('the list and each page show the last 24 hours: success rate, p50/p95, attempts per hour, latest delivered and failed with links', async () => {
    const fixture = await chartFixture();
    const client = new Client(fixture.origin);
    const { from, to } = fixtureRange(HOUR, 24);
    const list = (await client.get(`${BASE}/webhooks`)).text;
    for (const webhookId of ['wh_billing', 'wh_crm']) {
      const recent = fixture.deliveries.filter((delivery) => delivery.webhookId === webhookId && delivery.createdAt >= from && delivery.createdAt < to);
      expect(recent.length).toBeGreaterThan(10);
      const delivered = recent.filter((delivery) => delivery.status === 'delivered');
      const rate = ((delivered.length / recent.length) * 100).toFixed(1);
      const p50 = percentile(recent.map((delivery) => delivery.responseTimeMs), 0.5);
      const p95 = percentile(recent.map((delivery) => delivery.responseTimeMs), 0.95);
      const lastDelivered = delivered.at(-1)!;
      const lastFailed = recent.filter((delivery) => delivery.status !== 'delivered').at(-1)!;
      const page = (await client.get(`${BASE}/webhooks/${webhookId}`)).text;
      for (const text of [page, list]) {
        expect(text).toContain(`<strong data-success-rate="${rate}">${rate} %</strong> of ${recent.length} attempts delivered`);
        expect(text).toContain(`<span data-p50="${p50}" data-p95="${p95}">p50 ${p50} ms · p95 ${p95} ms</span>`);
        expect(text).toContain(`href="${BASE}/deliveries/${lastDelivered.id}"`);
        expect(text).toContain(`href="${BASE}/deliveries/${lastFailed.id}"`);
      }
      // The sparkline: one group per hour with attempts, its numbers in data attributes.
      const sparkline = /<svg class="spark"[\s\S]*?<\/svg>/.exec(page)![0];
      const hours = [...sparkline.matchAll(/<g data-from="([^"]+)" data-attempts="(\d+)" data-delivered="(\d+)">/g)];
      expect(hours.reduce((sum, hour) => sum + Number(hour[2]), 0)).toBe(recent.length);
      expect(hours.reduce((sum, hour) => sum + Number(hour[3]), 0)).toBe(delivered.length);
      for (const [, start, attempts] of hours) {
        expect(recent.filter((delivery) => delivery.createdAt >= Date.parse(start!) && delivery.createdAt < Date.parse(start!) + HOUR)).toHaveLength(Number(attempts));
      }
      expect(sparkline).toContain(`aria-label="Attempts per hour, last 24 hours: ${recent.length} in all, ${recent.length - delivered.length} failed;`);
      // Its scale: the full height is the busiest hour, written beside the bars.
      const busiest = Math.max(...hours.map((hour) => Number(hour[2])));
      expect(page).toContain(`<small class="spark-scale muted" aria-hidden="true" data-top="${busiest}">top ${busiest}/h</small>`);
    }
  });

  it('a failing registration says how long until the dispatcher disables it', async () => {
    const fixture = await chartFixture();
    const client = new Client(fixture.origin);
    const webhooks = await fixture.dispatcher.webhooks.list();
    const failing = webhooks.find((webhook) => webhook.failure_streak > 0);
    expect(failing).toBeDefined();
    const left = Date.parse(failing!.failing_since!) + fixture.dispatcher.settings.disableFailingAfterMs! - fixture.clock.now();
    const page = (await client.get(`${BASE}/webhooks/${failing!.id}`)).text;
    expect(page).toContain(`${failing!.failure_streak} failed in a row since`);
    expect(page).toContain(`<span data-disable-in-ms="${left}">disabled in ${durationText(left)} if it keeps failing</span>`);
  });

  it.each([
    [0, '0 s'],
    [40_000, '40 s'],
    [5 * 60_000, '5 min'],
    [2 * HOUR + 40 * 60_000, '2 h 40 min'],
    [33 * HOUR, '1 d 9 h'],
    [3 * 24 * HOUR + 5 * 60_000, '3 d'],
  ])('durationText(%d) = %s', (ms, text) => {
    expect(durationText(ms)).toBe(text);
  });
});
