import { DashboardError } from '../errors.js';
import { html, type Html } from '../html.js';
import { htmlResponse, redirect, type DashboardResponse } from '../http.js';
import { actionForm, codeBlock, notice, page, statusBadge, timeOf } from '../layout.js';
import { noticeText } from '../notices.js';
import type { Inbox } from '../../receiver/inbox.js';
import { INBOX_STATUSES, type InboxEvent, type InboxStatus } from '../../ports/inbox.js';
import { EVENT_TYPES } from '../../events/catalog.js';
import { lastPageOf, pageOf, pagePosition } from '../pager.js';
import { receivedTotals } from '../received-totals.js';
import { receiverOf, type Route, type RouteContext } from '../routes.js';

/** Events per page of the list. */
const PAGE_SIZE = 50;

function inboxOf(context: RouteContext): Inbox | undefined {
  return receiverOf(context).inbox;
}

const NO_INBOX = html`<p>This receiver's store has no inbox (the stores of this package have one). See the received events and the quarantine instead.</p>`;

/** The inbox: events stored before their handlers ran, by status; a dead one can be retried. */
export const INBOX_ROUTES: readonly Route[] = [
  { method: 'GET', path: '/receiver/inbox', handler: listPage },
  { method: 'GET', path: '/receiver/inbox/:id', handler: eventPage },
  { method: 'POST', path: '/receiver/inbox/:id/retry', handler: retry },
];

/** The inbox list's filters as given in its URL. */
interface InboxListFilter {
  status: InboxStatus | undefined;
  type: string | undefined;
  /** true: only skipped as stale; false: only not; undefined: both. */
  stale: boolean | undefined;
  /** ISO times (UTC): received from, before. */
  from: string | undefined;
  to: string | undefined;
}

function inboxFilterOf(query: URLSearchParams): InboxListFilter {
  const given = query.get('status');
  const type = query.get('type')?.trim();
  const time = (name: string) => {
    const value = query.get(name)?.trim();
    return value && Number.isFinite(Date.parse(value)) ? new Date(Date.parse(value)).toISOString() : undefined;
  };
  return { status: INBOX_STATUSES.find((known) => known === given), type: type || undefined, stale: query.get('stale') === '1' ? true : query.get('stale') === '0' ? false : undefined, from: time('from'), to: time('to') };
}

/** The list's URL with these filters (and a page). */
export function inboxListUrl(base: string, filter: Partial<InboxListFilter>, page?: number): string {
  const params = new URLSearchParams();
  if (filter.status) params.set('status', filter.status);
  if (filter.type) params.set('type', filter.type);
  if (filter.stale !== undefined) params.set('stale', filter.stale ? '1' : '0');
  if (filter.from) params.set('from', filter.from);
  if (filter.to) params.set('to', filter.to);
  if (page !== undefined && page > 1) params.set('page', String(page));
  const text = params.toString();
  return `${base}/receiver/inbox${text ? `?${text}` : ''}`;
}

function filterFormOf(base: string, filter: InboxListFilter): Html {
  const statusOptions = INBOX_STATUSES.map((name) => html`<option value="${name}"${filter.status === name ? html` selected` : ''}>${name}</option>`);
  const typeOptions = EVENT_TYPES.map((type) => html`<option value="${type}"${filter.type === type ? html` selected` : ''}>${type}</option>`);
  return html`<form class="filters" method="get" action="${base}/receiver/inbox" role="search" aria-label="Filter inbox events">
<span class="field"><label for="inbox-status">Status</label><select id="inbox-status" name="status"><option value="">any</option>${statusOptions}</select></span>
<span class="field"><label for="inbox-type">Event type</label><select id="inbox-type" name="type"><option value="">any</option>${typeOptions}</select></span>
<span class="field"><label for="inbox-stale"><input id="inbox-stale" type="checkbox" name="stale" value="1"${filter.stale === true ? html` checked` : ''}> only skipped as stale</label></span>
${filter.stale === false ? html`<input type="hidden" name="stale" value="0">` : ''}
${filter.from ? html`<input type="hidden" name="from" value="${filter.from}">` : ''}${filter.to ? html`<input type="hidden" name="to" value="${filter.to}">` : ''}
<button type="submit">Filter</button> <a href="${base}/receiver/inbox">Clear</a>
</form>`;
}

async function listPage(context: RouteContext): Promise<DashboardResponse> {
  const side = receiverOf(context);
  const inbox = side.inbox;
  if (!inbox) return htmlResponse(page(context.page, 'inbox', 'Inbox', NO_INBOX));
  const { base } = context.page;
  const filter = inboxFilterOf(context.query);
  const query = {
    status: filter.status,
    type: filter.type,
    stale: filter.stale,
    received_after: filter.from ? Date.parse(filter.from) : undefined,
    received_before: filter.to ? Date.parse(filter.to) : undefined,
  };
  // The totals and the list's count at once (on PostgreSQL, on connections of their own).
  const [totals, listed] = await Promise.all([receivedTotals(side), side.reads?.inboxCount(query)]);
  const stats = totals.inbox!;
  const cards = INBOX_STATUSES.map(
    (name) => html`<a class="card" href="${inboxListUrl(base, { status: name })}"${filter.status === name && filter.stale === undefined ? html` aria-current="true"` : ''}><span class="count">${stats[name]}</span>${name}${name === 'done' && side.reads ? html`<span class="muted">${stats.handled} handled, ${stats.stale} skipped as stale</span>` : ''}</a>`,
  );
  const oldest = stats.oldest_pending_at ? html`<p>The oldest pending event was received ${timeOf(stats.oldest_pending_at)}.</p>` : '';
  const intro = html`${notice(noticeText(context.query.get('notice')))}<p>In inbox mode the receiver stores each event and answers at once; a worker runs the handlers, retries failures, and marks an event dead when its retries are used up. In direct mode this stays empty.</p><div class="cards">${cards}</div>${oldest}`;
  const reads = side.reads;
  if (!reads) {
    // A store of another package: its inbox lists, but does not page or count by filter.
    const events = await inbox.list({ ...(filter.status ? { status: filter.status } : {}), ...(filter.type ? { type: filter.type } : {}), limit: PAGE_SIZE });
    const body = html`${intro}<p class="muted">This store does not page its inbox: the newest ${PAGE_SIZE} are shown.</p>${eventTable(base, events)}`;
    return htmlResponse(page(context.page, 'inbox', 'Inbox', body));
  }
  const total = listed ?? 0;
  const lastPage = lastPageOf(total, PAGE_SIZE);
  const current = pageOf(context.query, lastPage);
  const events = await reads.inboxPage({ ...query, limit: PAGE_SIZE, offset: (current - 1) * PAGE_SIZE });
  const range = filter.from || filter.to ? html`<p>Received ${filter.from ? html`from ${timeOf(filter.from)} ` : ''}${filter.to ? html`before ${timeOf(filter.to)}` : ''} · <a href="${inboxListUrl(base, { ...filter, from: undefined, to: undefined })}">any time</a></p>` : '';
  const position = pagePosition({ total, current, pageSize: PAGE_SIZE, shown: events.length, noun: 'events', link: (to) => inboxListUrl(base, filter, to) });
  const body = html`${intro}${filterFormOf(base, filter)}${range}${position}${eventTable(base, events)}${events.length > 0 ? position : ''}`;
  return htmlResponse(page(context.page, 'inbox', 'Inbox', body));
}

function eventTable(base: string, events: readonly InboxEvent[]): Html {
  if (events.length === 0) return html`<p>No events.</p>`;
  const rows = events.map(
    (event) => html`<tr><td>${timeOf(event.received_at)}</td><td><a href="${base}/receiver/inbox/${encodeURIComponent(event.event_id)}">${event.event_type}</a><br><span class="muted mono">${event.event_id}</span></td>
<td>${statusBadge(event.status)}${event.stale ? html` ${statusBadge('stale', 'skipped as stale')}` : ''}</td><td class="num">${event.attempts}</td><td>${event.last_error ? html`<code>${event.last_error.code}</code> ${event.last_error.message}` : ''}</td></tr>`,
  );
  return html`<table><caption class="muted">Newest first. Skipped as stale: the ordering guard found a newer event of its object handled first, so its handlers did not run.</caption>
<thead><tr><th scope="col">Received</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col" class="num">Runs</th><th scope="col">Handler's last error</th></tr></thead><tbody>${rows}</tbody></table>`;
}

async function eventPage(context: RouteContext): Promise<DashboardResponse> {
  const inbox = inboxOf(context);
  if (!inbox) return htmlResponse(page(context.page, 'inbox', 'Inbox', NO_INBOX), 404);
  const event = await inbox.get(context.params.id!);
  if (!event) throw new DashboardError('NOT_FOUND', 'No such inbox event', { id: context.params.id });
  const body = html`${notice(noticeText(context.query.get('notice')))}<dl class="facts">
<dt>Event</dt><dd>${event.event_type} <span class="mono">${event.event_id}</span></dd>
<dt>Status</dt><dd>${statusBadge(event.status)}</dd>
<dt>Handler runs</dt><dd>${event.attempts}</dd>
<dt>Received</dt><dd>${timeOf(event.received_at)}</dd>
<dt>Next run</dt><dd>${timeOf(event.next_attempt_at)}</dd>
<dt>Completed</dt><dd>${timeOf(event.completed_at)}</dd>
<dt>Last error</dt><dd>${event.last_error ? html`<code>${event.last_error.code}</code> ${event.last_error.message}` : html`<span class="muted">none</span>`}</dd>
<dt>Ordering key</dt><dd>${event.ordering_key ?? html`<span class="muted">none</span>`}${event.stale ? ' (skipped as stale: a newer event of its object was handled first)' : ''}</dd>
<dt>Kept headers</dt><dd>${Object.entries(event.headers).map(([name, value]) => html`<code>${name}: ${value}</code><br>`)}</dd>
</dl>
${event.status === 'dead' || event.status === 'pending' ? html`<div class="actions">${actionForm(context.page, `/receiver/inbox/${encodeURIComponent(event.event_id)}/retry`, 'Retry')}</div>` : ''}
<h2>Payload</h2>${codeBlock('payload', 'the payload', event.raw_body.toString('utf8'))}`;
  return htmlResponse(page(context.page, 'inbox', 'Inbox event', body));
}

async function retry(context: RouteContext): Promise<DashboardResponse> {
  const inbox = inboxOf(context);
  if (!inbox) throw new DashboardError('NOT_FOUND', 'This receiver has no inbox');
  await inbox.retry(context.params.id!);
  return redirect(`${context.page.base}/receiver/inbox/${encodeURIComponent(context.params.id!)}?notice=inbox-retried`);
}
