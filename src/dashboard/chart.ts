import type { BucketCount, BucketRange } from '../ports/buckets.js';
import { html, type Html } from './html.js';
import { isoString } from '../kernel/iso-string.js';

/*
 * Stacked bar charts as inline SVG, rendered on the server: no script, nothing the
 * Content-Security-Policy refuses (colours come from the stylesheet's classes, so they follow the
 * light and dark schemes and print), and the same numbers three ways: the bars' data attributes,
 * each bar's <title>, and a table behind a <details>.
 */

/** One stacked outcome: its key (a CSS class `bar-<key>` colours it) and what the legend says. */
export interface ChartSeries<Key extends string> {
  key: Key;
  label: string;
}

export interface StackedBarChart<Key extends string> {
  /** Unique on the page: the ids of the title and description derive from it. */
  id: string;
  title: string;
  /** What the bars count, after the totals in the description ("Each bar links to …"). */
  explanation: string;
  range: BucketRange;
  series: readonly ChartSeries<Key>[];
  counts: readonly BucketCount<Key>[];
  /** Where a bar leads: the list filtered to its bucket and outcome. */
  link: (bucket: { from: number; to: number }, key: Key) => string;
  /** A bucket's start as the axis and the table name it. */
  label: (start: number) => string;
}

const WIDTH = 760;
const HEIGHT = 220;
const LEFT = 44;
const RIGHT = 8;
const TOP = 10;
const BOTTOM = 28;

/** The smallest of 1, 2, 5 × 10^k at or above `value` (at least 1): the top of the y axis. */
export function niceCeiling(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** Counts per bucket and key, every bucket of the range present. */
export function bucketTable<Key extends string>(range: BucketRange, series: readonly ChartSeries<Key>[], counts: readonly BucketCount<Key>[]): Map<Key, number>[] {
  const buckets = Math.ceil((range.to - range.from) / range.size);
  const table = Array.from({ length: buckets }, () => new Map<Key, number>(series.map(({ key }) => [key, 0])));
  for (const { bucket, outcome, count } of counts) {
    const row = table[bucket];
    if (row?.has(outcome)) row.set(outcome, (row.get(outcome) ?? 0) + count);
  }
  return table;
}

const number = (value: number) => value.toLocaleString('en');

export function stackedBarChart<Key extends string>(chart: StackedBarChart<Key>): Html {
  const { id, range, series } = chart;
  const table = bucketTable(range, series, chart.counts);
  const totals = table.map((row) => [...row.values()].reduce((sum, value) => sum + value, 0));
  const top = niceCeiling(Math.max(0, ...totals));
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / table.length;
  const barWidth = Math.max(1, slot * 0.78);
  const y = (value: number) => TOP + plotHeight - (value / top) * plotHeight;
  const sums = series.map(({ key }) => table.reduce((sum, row) => sum + (row.get(key) ?? 0), 0));
  const total = sums.reduce((sum, value) => sum + value, 0);
  const description = `${number(total)} in all: ${series.map(({ label }, index) => `${number(sums[index]!)} ${label}`).join(', ')}. ${chart.explanation}`;

  const grid = [0, top / 2, top].map(
    (value) => html`<line class="grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}"></line><text class="axis" x="${LEFT - 6}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end">${number(value)}</text>`,
  );
  const every = Math.ceil(table.length / 8);
  const ticks = table.map((_, index) =>
    index % every === 0 ? html`<text class="axis" x="${(LEFT + index * slot).toFixed(1)}" y="${HEIGHT - 8}">${chart.label(range.from + index * range.size)}</text>` : '',
  );
  const bars = table.map((row, index) => {
    const from = range.from + index * range.size;
    const to = from + range.size;
    const x = (LEFT + index * slot + (slot - barWidth) / 2).toFixed(1);
    let stacked = 0;
    return series.map(({ key, label }) => {
      const count = row.get(key) ?? 0;
      if (count === 0) return '';
      const bottom = y(stacked);
      stacked += count;
      const height = Math.max(1, bottom - y(stacked));
      const name = `${number(count)} ${label}, ${chart.label(from)} to ${chart.label(to)} UTC`;
      return html`<a href="${chart.link({ from, to }, key)}" aria-label="${name}"><rect class="bar bar-${key}" x="${x}" y="${(bottom - height).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${height.toFixed(1)}" data-outcome="${key}" data-count="${count}" data-from="${isoString(from)}" data-to="${isoString(to)}"><title>${name}</title></rect></a>`;
    });
  });
  const legend = series.map(({ key, label }, index) => html`<li><span class="swatch bar-${key}" aria-hidden="true"></span>${label} <strong>${number(sums[index]!)}</strong></li>`);
  const rows = table.map(
    (row, index) =>
      html`<tr><th scope="row">${chart.label(range.from + index * range.size)}</th>${series.map(({ key }) => html`<td class="num">${number(row.get(key) ?? 0)}</td>`)}<td class="num">${number(totals[index]!)}</td></tr>`,
  );
  return html`<figure class="chart" id="${id}">
<svg class="chart-svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="group" aria-labelledby="${id}-title ${id}-desc" data-from="${isoString(range.from)}" data-to="${isoString(range.to)}" data-bucket-ms="${range.size}" data-total="${total}">
<title id="${id}-title">${chart.title}</title>
<desc id="${id}-desc">${description}</desc>
${grid}${ticks}${bars}
</svg>
<figcaption><ul class="legend">${legend}</ul></figcaption>
<details><summary>${chart.title}: the numbers as a table</summary>
<table><caption class="muted">Bucket starts (UTC); each row counts until the next.</caption>
<thead><tr><th scope="col">From (UTC)</th>${series.map(({ label }) => html`<th scope="col" class="num">${label}</th>`)}<th scope="col" class="num">All</th></tr></thead>
<tbody>${rows}</tbody></table></details>
</figure>`;
}
