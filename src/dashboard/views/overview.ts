import { DELIVERY_STATUSES } from '../../ports/dispatch-statuses.js';
import { html, type Content } from '../html.js';
import { htmlResponse, type DashboardResponse } from '../http.js';
import { page } from '../layout.js';
import { receivedTotals } from '../received-totals.js';
import type { Route, RouteContext } from '../routes.js';

/** The start page: counts that link to the views behind them. */
export const OVERVIEW_ROUTES: readonly Route[] = [{ method: 'GET', path: '/', handler: overviewPage }];

async function overviewPage(context: RouteContext): Promise<DashboardResponse> {
  const { base } = context.page;
  const sections: Content[] = [];
  if (context.dispatcher) {
    const dispatcher = context.dispatcher;
    const [webhooks, ...counts] = await Promise.all([dispatcher.webhooks.list(), ...DELIVERY_STATUSES.map((status) => dispatcher.deliveries.count({ status }))]);
    sections.push(html`<h2>Sending</h2><div class="cards">
<a class="card" href="${base}/webhooks"><span class="count">${webhooks.length}</span>registrations</a>
${DELIVERY_STATUSES.map((status, index) => html`<a class="card" href="${base}/deliveries?status=${status}"><span class="count">${counts[index] ?? 0}</span>${status.replace('_', ' ')}</a>`)}
</div>`);
  }
  if (context.receiver) {
    const totals = await receivedTotals(context.receiver);
    sections.push(html`<h2>Receiving</h2><div class="cards">
<a class="card" href="${base}/receiver/events"><span class="count">${totals.handled}</span>handled events</a>
${totals.direct === undefined ? '' : html`<a class="card" href="${base}/receiver/events?state=processing"><span class="count">${totals.direct.inProgressOrFailed}</span>in progress or failed</a>`}
<a class="card" href="${base}/receiver/quarantine"><span class="count">${totals.quarantined}</span>quarantined</a>
${totals.inbox === undefined ? '' : html`<a class="card" href="${base}/receiver/inbox?status=done&amp;stale=1"><span class="count">${totals.inbox.stale}</span>skipped as stale</a>
<a class="card" href="${base}/receiver/inbox?status=pending"><span class="count">${totals.inbox.pending}</span>pending in the inbox</a>
<a class="card" href="${base}/receiver/inbox?status=dead"><span class="count">${totals.inbox.dead}</span>dead in the inbox</a>`}
</div>`);
  }
  return htmlResponse(page(context.page, 'overview', 'Webhooks', sections));
}
