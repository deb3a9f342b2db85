import { DELIVERY_STATUSES, type DeliveryStatus } from '../../ports/dispatch-statuses.js';
import type { BucketCount, BucketRange } from '../../ports/buckets.js';
import type { ReceivedOutcome } from '../../ports/received-reads.js';
import { readsOfDispatcher } from '../../dispatcher/reads.js';
import { stackedBarChart, type ChartSeries } from '../chart.js';
import { bucketLabel, chartRange, chartRangeName, CHART_RANGES, filterTime, type ChartRangeName } from '../chart-range.js';
import { filterQuery } from '../delivery-filter-form.js';
import { html, type Content } from '../html.js';
import { htmlResponse, type DashboardResponse } from '../http.js';
import { page } from '../layout.js';
import { receivedTotals, type ReceivedTotals } from '../received-totals.js';
import type { ReceiverSide } from '../receiver-side.js';
import type { Route, RouteContext } from '../routes.js';
import { inboxListUrl } from './inbox.js';

/** The start page: charts of the last 24 hours or 7 days, and counts that link to the views behind them. */
export const OVERVIEW_ROUTES: readonly Route[] = [{ method: 'GET', path: '/', handler: overviewPage }];

const DELIVERY_SERIES: readonly ChartSeries<DeliveryStatus>[] = [
  { key: 'delivered', label: 'delivered' },
  { key: 'retrying', label: 'retrying' },
  { key: 'finally_failed', label: 'finally failed' },
];

const RECEIVED_SERIES: readonly ChartSeries<ReceivedOutcome>[] = [
  { key: 'handled', label: 'handled' },
  { key: 'stale', label: 'skipped as stale' },
  { key: 'quarantined', label: 'quarantined' },
  { key: 'failed', label: 'failed or dead' },
  { key: 'pending', label: 'pending' },
];

function rangeSwitch(base: string, current: ChartRangeName): Content {
  const links = (Object.keys(CHART_RANGES) as ChartRangeName[]).map(
    (name) => html`<a href="${base}/?range=${name}"${name === current ? html` aria-current="true"` : ''}>${CHART_RANGES[name].label}</a>`,
  );
  return html`<nav class="range-switch" aria-label="Chart range"><span class="muted">Charts:</span> ${links}</nav>`;
}

async function overviewPage(context: RouteContext): Promise<DashboardResponse> {
  const { base } = context.page;
  const rangeName = chartRangeName(context.query.get('range'));
  const range = chartRange(rangeName, context.now);
  const { label, per } = CHART_RANGES[rangeName];
  // Both sides' queries at once: on PostgreSQL each takes a connection of its own, so the page
  // waits for the slowest query instead of their sum (docs/dashboard.md#performance).
  const [sending, receiving] = await Promise.all([
    context.dispatcher ? sendingSection(context, context.dispatcher, range, label, per) : '',
    context.receiver ? receivingSection(context, context.receiver, range, label, per) : '',
  ]);
  return htmlResponse(page(context.page, 'overview', 'Webhooks', [rangeSwitch(base, rangeName), sending, receiving]));
}

async function sendingSection(context: RouteContext, dispatcher: NonNullable<RouteContext['dispatcher']>, range: BucketRange, label: string, per: string): Promise<Content> {
  const { base } = context.page;
  const readsAndBuckets = readsOfDispatcher(dispatcher).then(async (reads) => (reads ? await reads.deliveryBuckets(range) : undefined));
  const [webhooks, buckets, ...counts] = await Promise.all([dispatcher.webhooks.count(), readsAndBuckets, ...DELIVERY_STATUSES.map((status) => dispatcher.deliveries.count({ status }))]);
  const chart = buckets
    ? stackedBarChart({
        id: 'chart-deliveries',
        title: `Deliveries per ${per}, ${label}`,
        explanation: `By when each delivery was created and its status now. Each bar links to the deliveries of its ${per} with its status.`,
        range,
        series: DELIVERY_SERIES,
        counts: buckets,
        link: (bucket, status) => `${base}/deliveries${filterQuery({ status, from: filterTime(bucket.from), to: filterTime(bucket.to) })}`,
        label: bucketLabel,
      })
    : '';
  return html`<h2>Sending</h2>${chart}<div class="cards">
<a class="card" href="${base}/webhooks"><span class="count">${webhooks.total}</span>registrations</a>
${DELIVERY_STATUSES.map((status, index) => html`<a class="card" href="${base}/deliveries?status=${status}"><span class="count">${counts[index] ?? 0}</span>${status.replace('_', ' ')}</a>`)}
</div>`;
}

async function receivingSection(context: RouteContext, side: ReceiverSide, range: BucketRange, label: string, per: string): Promise<Content> {
  const { base } = context.page;
  const [totals, counts] = await Promise.all([receivedTotals(side), side.reads?.receivedBuckets({ ...range, now: context.now })]);
  const chart = counts ? receivedChart(context, totals, counts, range, `${per}, ${label}`, per) : '';
  return html`<h2>Receiving</h2>${chart}<div class="cards">
<a class="card" href="${base}/receiver/events"><span class="count">${totals.handled}</span>handled events</a>
${totals.direct === undefined ? '' : html`<a class="card" href="${base}/receiver/events?state=processing"><span class="count">${totals.direct.inProgressOrFailed}</span>in progress or failed</a>`}
<a class="card" href="${base}/receiver/quarantine"><span class="count">${totals.quarantined}</span>quarantined</a>
${totals.inbox === undefined ? '' : html`<a class="card" href="${inboxListUrl(base, { status: 'done', stale: true })}"><span class="count">${totals.inbox.stale}</span>skipped as stale</a>
<a class="card" href="${inboxListUrl(base, { status: 'pending' })}"><span class="count">${totals.inbox.pending}</span>pending in the inbox</a>
<a class="card" href="${inboxListUrl(base, { status: 'dead' })}"><span class="count">${totals.inbox.dead}</span>dead in the inbox</a>`}
</div>`;
}

/**
 * The receiving side's chart. Its bars lead to the list that holds their events: the Inbox
 * (filtered by status and time) when the store has inbox events, Received events (by state) in
 * direct mode, the quarantine for quarantined payloads.
 */
function receivedChart(context: RouteContext, totals: ReceivedTotals, counts: BucketCount<ReceivedOutcome>[], range: BucketRange, title: string, per: string): Content {
  const { base } = context.page;
  const inbox = totals.inbox;
  const inboxMode = inbox !== undefined && inbox.pending + inbox.processing + inbox.done + inbox.dead > 0;
  return stackedBarChart({
    id: 'chart-received',
    title: `Received events per ${title}`,
    explanation: `By when each event was first received and what became of it. Each bar links to the ${inboxMode ? 'inbox events' : 'events'} of its ${per} with that outcome.`,
    range,
    series: RECEIVED_SERIES,
    counts,
    link: (bucket, outcome) => {
      if (outcome === 'quarantined') return `${base}/receiver/quarantine`;
      if (!inboxMode) return `${base}/receiver/events?state=${outcome === 'handled' ? 'completed' : 'processing'}`;
      const time = { from: new Date(bucket.from).toISOString(), to: new Date(bucket.to).toISOString() };
      if (outcome === 'handled') return inboxListUrl(base, { status: 'done', stale: false, ...time });
      if (outcome === 'stale') return inboxListUrl(base, { status: 'done', stale: true, ...time });
      if (outcome === 'failed') return inboxListUrl(base, { status: 'dead', ...time });
      return inboxListUrl(base, { status: 'pending', ...time });
    },
    label: bucketLabel,
  });
}
