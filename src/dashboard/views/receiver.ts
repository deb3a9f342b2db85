import { WebhookValidationError } from '../../kernel/errors.js';
import type { EventRecordState } from '../../ports/event-records.js';
import { DashboardError } from '../errors.js';
import { html, type Html } from '../html.js';
import { htmlResponse, redirect, type DashboardResponse } from '../http.js';
import { actionForm, codeBlock, notice, page, statusBadge, timeOf } from '../layout.js';
import { noticeText } from '../notices.js';
import { receivedTotals } from '../received-totals.js';
import { receiverOf, type Route, type RouteContext } from '../routes.js';

const PAGE_SIZE = 50;


/** The receiving side: handled events, the quarantine, the inbox. */
export const RECEIVER_ROUTES: readonly Route[] = [
  { method: 'GET', path: '/receiver/events', handler: eventsPage },
  { method: 'GET', path: '/receiver/quarantine', handler: quarantinePage },
  { method: 'GET', path: '/receiver/quarantine/:id', handler: quarantinedPage },
  { method: 'POST', path: '/receiver/quarantine/:id/reprocess', handler: reprocess },
];

/** How a record reads: handled, being handled now, or given up and waiting for the sender's retry. */
function outcomeOf(state: EventRecordState, leaseUntil: string | null, now: number): [string, string] {
  if (state === 'completed') return ['completed', 'handled'];
  return leaseUntil !== null && Date.parse(leaseUntil) > now ? ['processing', 'in progress'] : ['failed', 'failed, awaiting redelivery'];
}

async function eventsPage(context: RouteContext): Promise<DashboardResponse> {
  const receiver = receiverOf(context);
  const { base } = context.page;
  const records = receiver.events;
  if (!records) {
    return htmlResponse(page(context.page, 'receiver', 'Received events', html`<p>This receiver's store does not list its records (the SQLite store does). The quarantine is on its own page.</p>`));
  }
  const stateParam = context.query.get('state');
  const state = stateParam === 'completed' || stateParam === 'processing' ? stateParam : undefined;
  const totals = await receivedTotals(receiver);
  const handled = totals.direct?.handled ?? 0;
  const processing = totals.direct?.inProgressOrFailed ?? 0;
  const total = state === undefined ? handled + processing : state === 'completed' ? handled : processing;
  const lastPage = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const current = Math.min(Math.max(1, Number.parseInt(context.query.get('page') ?? '1', 10) || 1), lastPage);
  const list = await records.list({ ...(state ? { state } : {}), limit: PAGE_SIZE, offset: (current - 1) * PAGE_SIZE });
  const now = context.now;
  const inbox = totals.inbox;
  const cards = html`<div class="cards">
<a class="card" href="${base}/receiver/events?state=completed"><span class="count">${totals.handled}</span>handled${inbox ? html`<span class="muted">${handled} directly, ${inbox.handled} through the inbox</span>` : ''}</a>
<a class="card" href="${base}/receiver/events?state=processing"><span class="count">${processing}</span>in progress or failed</a>
<a class="card" href="${base}/receiver/quarantine"><span class="count">${totals.quarantined}</span>quarantined (authentic, but invalid)</a>
</div>
${inbox && inbox.pending + inbox.processing + inbox.done + inbox.dead > 0 ? html`<p>Through the <a href="${base}/receiver/inbox">inbox</a> (inbox mode): ${inbox.handled} handled, <a href="${base}/receiver/inbox?status=done&amp;stale=1">${inbox.stale} skipped as stale</a> by the ordering guard, <a href="${base}/receiver/inbox?status=dead">${inbox.dead} dead</a>, ${inbox.pending + inbox.processing} pending or running. The list below is direct mode's; the inbox lists its own.</p>` : ''}`;
  const rows = list.map((record) => {
    const [kind, label] = outcomeOf(record.state, record.lease_until, now);
    return html`<tr><td>${timeOf(record.first_seen_at)}</td><td>${record.event_type ?? '—'}</td><td class="mono">${record.event_id}</td><td>${statusBadge(kind, label)}</td><td class="num">${record.claims}</td><td>${timeOf(record.completed_at)}</td></tr>`;
  });
  const filterLinks = html`<p>Show: <a href="${base}/receiver/events"${state === undefined ? html` aria-current="true"` : ''}>all</a> · <a href="${base}/receiver/events?state=completed"${state === 'completed' ? html` aria-current="true"` : ''}>handled</a> · <a href="${base}/receiver/events?state=processing"${state === 'processing' ? html` aria-current="true"` : ''}>in progress or failed</a></p>`;
  const pager = html`<p class="pager">Page ${current} of ${lastPage} (${total} events)${current > 1 ? html` <a href="${base}/receiver/events?${state ? `state=${state}&` : ''}page=${current - 1}">← Newer</a>` : ''}${current < lastPage ? html` <a href="${base}/receiver/events?${state ? `state=${state}&` : ''}page=${current + 1}">Older →</a>` : ''}</p>`;
  const table = html`<table><caption class="muted">Event ids the receiver claimed, newest first. Rejected requests (bad signature, stale timestamp) are answered and logged, not stored.</caption>
<thead><tr><th scope="col">First seen</th><th scope="col">Type</th><th scope="col">Event id</th><th scope="col">Outcome</th><th scope="col" class="num">Claims</th><th scope="col">Handled at</th></tr></thead>
<tbody>${rows}</tbody></table>`;
  return htmlResponse(page(context.page, 'receiver', 'Received events', html`${cards}${filterLinks}${pager}${list.length === 0 ? html`<p>No events.</p>` : table}`));
}

async function quarantinePage(context: RouteContext): Promise<DashboardResponse> {
  const entries = await receiverOf(context).quarantine.list();
  const { base } = context.page;
  const rows = entries.map(
    (entry) => html`<tr><td><a href="${base}/receiver/quarantine/${encodeURIComponent(entry.id)}">${entry.event_type ?? 'unknown type'}</a><br><span class="muted mono">${entry.event_id ?? entry.id}</span></td>
<td>${entry.reason.replace('_', ' ')}</td><td><code>${entry.error_code}</code> ${entry.error_message}</td><td class="num">${entry.deliveries}</td><td>${timeOf(entry.last_received_at)}</td></tr>`,
  );
  const body = html`${notice(noticeText(context.query.get('notice')))}<p>Authentic payloads the receiver could not process (answered 422, kept with their bytes). Reprocess one after a fix.</p>
${entries.length === 0 ? html`<p>The quarantine is empty.</p>` : html`<table><thead><tr><th scope="col">Event</th><th scope="col">Reason</th><th scope="col">Error</th><th scope="col" class="num">Deliveries</th><th scope="col">Last received</th></tr></thead><tbody>${rows}</tbody></table>`}`;
  return htmlResponse(page(context.page, 'quarantine', 'Quarantine', body));
}

async function quarantinedPage(context: RouteContext, problem?: string): Promise<DashboardResponse> {
  const receiver = receiverOf(context);
  const entry = await receiver.quarantine.get(context.params.id!);
  if (!entry) throw new DashboardError('NOT_FOUND', 'No such quarantined payload', { id: context.params.id });
  const reprocessButton = receiver.reprocess
    ? actionForm(context.page, `/receiver/quarantine/${encodeURIComponent(entry.id)}/reprocess`, 'Reprocess')
    : html`<p class="muted">Reprocessing needs the receiver with its handlers: mount the dashboard in the receiving app.</p>`;
  const body: Html = html`${notice(problem, 'problem')}<dl class="facts">
<dt>Id</dt><dd class="mono">${entry.id}</dd>
<dt>Reason</dt><dd>${entry.reason.replace('_', ' ')}</dd>
<dt>Event</dt><dd>${entry.event_type ?? '—'} <span class="mono">${entry.event_id ?? ''}</span></dd>
<dt>Error</dt><dd><code>${entry.error_code}</code> ${entry.error_message}</dd>
<dt>Deliveries</dt><dd>${entry.deliveries}</dd>
<dt>First received</dt><dd>${timeOf(entry.first_received_at)}</dd>
<dt>Last received</dt><dd>${timeOf(entry.last_received_at)}</dd>
</dl>
<div class="actions">${reprocessButton}</div>
<h2>Payload</h2>${codeBlock('payload', 'the payload', entry.raw_body.toString('utf8'))}`;
  return htmlResponse(page(context.page, 'quarantine', 'Quarantined payload', body), problem ? 422 : 200);
}

async function reprocess(context: RouteContext): Promise<DashboardResponse> {
  const receiver = receiverOf(context);
  if (!receiver.reprocess) throw new DashboardError('METHOD_NOT_ALLOWED', 'Reprocessing needs the receiver with its handlers');
  try {
    const response = await receiver.reprocess(context.params.id!);
    if (response.status >= 300) return quarantinedPage(context, `The handlers did not succeed: status ${response.status}. The payload stays in the quarantine.`);
  } catch (error) {
    if (!(error instanceof WebhookValidationError)) throw error;
    return quarantinedPage(context, `The payload still does not validate (${error.code}): ${error.message}`);
  }
  return redirect(`${context.page.base}/receiver/quarantine?notice=reprocessed`);
}
