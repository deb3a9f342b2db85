import { DELIVERY_STATUSES } from '../../ports/dispatch-statuses.js';
import { html, type Content } from '../html.js';
import { htmlResponse, type DashboardResponse } from '../http.js';
import { page } from '../layout.js';
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
    const receiver = context.receiver;
    const [handled, quarantined, inbox] = await Promise.all([receiver.events?.count('completed'), receiver.quarantine.list(), receiver.inbox?.stats()]);
    sections.push(html`<h2>Receiving</h2><div class="cards">
${handled === undefined ? '' : html`<a class="card" href="${base}/receiver/events?state=completed"><span class="count">${handled}</span>handled events</a>`}
<a class="card" href="${base}/receiver/quarantine"><span class="count">${quarantined.length}</span>quarantined</a>
${inbox === undefined ? '' : html`<a class="card" href="${base}/receiver/inbox?status=pending"><span class="count">${inbox.pending}</span>pending in the inbox</a>
<a class="card" href="${base}/receiver/inbox?status=dead"><span class="count">${inbox.dead}</span>dead in the inbox</a>`}
</div>`);
  }
  return htmlResponse(page(context.page, 'overview', 'Webhooks', sections));
}
