import { describe, expect, it } from 'vitest';
import { chartFixture, expectedDeliveryBuckets, fixtureRange } from './chart-fixture.js';
import { BASE, Client } from './fixtures.js';

const HOUR = 3_600_000;

interface Bar {
  outcome: string;
  count: number;
  from: number;
  to: number;
  href: string;
}

/** The bars of one chart, as its SVG's data attributes give them. */
function barsOf(page: string, id: string): Bar[] {
  const figure = new RegExp(`<figure class="chart" id="${id}">([\\s\\S]*?)</figure>`).exec(page)?.[1];
  if (!figure) throw new Error(`no chart ${id}`);
  return [...figure.matchAll(/<a href="([^"]+)"[^>]*><rect [^>]*data-outcome="([^"]+)" data-count="(\d+)" data-from="([^"]+)" data-to="([^"]+)"/g)].map((match) => ({
    href: match[1]!.replaceAll('&amp;', '&'),
    outcome: match[2]!,
    count: Number(match[3]),
    from: Date.parse(match[4]!),
    to: Date.parse(match[5]!),
  }));
}

describe('the overview charts', () => {
  it.each([
    ['24h', HOUR, 24],
    ['7d', 6 * HOUR, 28],
  ] as const)('%s: every bar of the deliveries chart is what the store holds for its bucket and status, and the table says the same', async (range, size, buckets) => {
    const fixture = await chartFixture();
    const client = new Client(fixture.origin);
    const page = (await client.get(`${BASE}/?range=${range}`)).text;
    const bars = barsOf(page, 'chart-deliveries');
    const want = expectedDeliveryBuckets(fixture.deliveries, size, buckets);
    expect(new Map(bars.map((bar) => [`${bar.from}:${bar.outcome}`, bar.count]))).toEqual(want);
    expect(bars.every((bar) => bar.to - bar.from === size)).toBe(true);
    expect(new Set(bars.map((bar) => bar.outcome))).toEqual(new Set(['delivered', 'retrying', 'finally_failed']));
    const total = [...want.values()].reduce((sum, value) => sum + value, 0);
    expect(page).toContain(`data-total="${total}"`);
    expect(page).toMatch(new RegExp(`<desc id="chart-deliveries-desc">${total.toLocaleString('en')} in all: `));
    expect(page).toContain('aria-current="true">' + (range === '24h' ? 'last 24 hours' : 'last 7 days'));
    // The table behind <details>: one row per bucket, its last cell the bucket's total.
    const table = /<figure class="chart" id="chart-deliveries">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(page)![1]!;
    const rows = [...table.matchAll(/<tr><th scope="row">[^<]+<\/th>((?:<td class="num">[\d,]+<\/td>)+)<\/tr>/g)];
    expect(rows).toHaveLength(buckets);
    const rowTotals = rows.map((row) => [...row[1]!.matchAll(/>([\d,]+)</g)].map((cell) => Number(cell[1]!.replaceAll(',', ''))).at(-1)!);
    expect(rowTotals.reduce((sum, value) => sum + value, 0)).toBe(total);
  });

  it("a bar's link opens the deliveries list filtered to its bucket and status, with as many deliveries as the bar counts", async () => {
    const fixture = await chartFixture();
    const client = new Client(fixture.origin);
    const bars = barsOf((await client.get(`${BASE}/?range=7d`)).text, 'chart-deliveries');
    const checked = [bars.find((bar) => bar.outcome === 'finally_failed')!, bars.find((bar) => bar.outcome === 'retrying')!, bars.reduce((a, b) => (b.count > a.count ? b : a))];
    for (const bar of checked) {
      const url = new URL(bar.href, fixture.origin);
      expect(url.pathname).toBe(`${BASE}/deliveries`);
      expect(url.searchParams.get('status')).toBe(bar.outcome);
      const list = (await client.get(`${url.pathname}${url.search}`)).text;
      expect(list).toContain(`of <strong>${bar.count}</strong> deliveries`);
    }
  });

  it('the receiving chart counts handled, failed and quarantined events per bucket as seeded', async () => {
    const fixture = await chartFixture();
    const client = new Client(fixture.origin);
    const bars = barsOf((await client.get(`${BASE}/?range=7d`)).text, 'chart-received');
    const size = 6 * HOUR;
    const { from } = fixtureRange(size, 28);
    const want = new Map<string, number>();
    for (const receipt of fixture.receipts) {
      if (receipt.at < from) continue;
      const key = `${from + Math.floor((receipt.at - from) / size) * size}:${receipt.outcome}`;
      want.set(key, (want.get(key) ?? 0) + 1);
    }
    expect(new Map(bars.map((bar) => [`${bar.from}:${bar.outcome}`, bar.count]))).toEqual(want);
  });
});
