import { DashboardError } from '../errors.js';
import { html } from '../html.js';
import { htmlResponse, redirect, type DashboardResponse } from '../http.js';
import { actionForm, codeBlock, notice, page, statusBadge, timeOf } from '../layout.js';
import { noticeText } from '../notices.js';
import type { Inbox } from '../../receiver/inbox.js';
import { INBOX_STATUSES } from '../../ports/inbox.js';
import { receiverOf, type Route, type RouteContext } from '../routes.js';

const LIST_LIMIT = 100;


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

async function listPage(context: RouteContext): Promise<DashboardResponse> {
  const inbox = inboxOf(context);
  if (!inbox) return htmlResponse(page(context.page, 'inbox', 'Inbox', NO_INBOX));
  const { base } = context.page;
  const given = context.query.get('status');
  const status = INBOX_STATUSES.find((known) => known === given);
  const [stats, events] = await Promise.all([inbox.stats(), inbox.list({ ...(status ? { status } : {}), limit: LIST_LIMIT })]);
  const cards = INBOX_STATUSES.map(
    (name) => html`<a class="card" href="${base}/receiver/inbox?status=${name}"${status === name ? html` aria-current="true"` : ''}><span class="count">${stats[name]}</span>${name}</a>`,
  );
  const rows = events.map(
    (event) => html`<tr><td>${timeOf(event.received_at)}</td><td><a href="${base}/receiver/inbox/${encodeURIComponent(event.event_id)}">${event.event_type}</a><br><span class="muted mono">${event.event_id}</span></td>
<td>${statusBadge(event.status)}</td><td class="num">${event.attempts}</td><td>${event.last_error ? html`<code>${event.last_error.code}</code> ${event.last_error.message}` : ''}</td></tr>`,
  );
  const oldest = stats.oldest_pending_at ? html`<p>The oldest pending event was received ${timeOf(stats.oldest_pending_at)}.</p>` : '';
  const body = html`${notice(noticeText(context.query.get('notice')))}<p>In inbox mode the receiver stores each event and answers at once; a worker runs the handlers, retries failures, and marks an event dead when its retries are used up. In direct mode this stays empty.</p><div class="cards">${cards}</div>${oldest}
<p><a href="${base}/receiver/inbox">All statuses</a> · at most ${LIST_LIMIT} shown</p>
${events.length === 0 ? html`<p>No events.</p>` : html`<table><thead><tr><th scope="col">Received</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col" class="num">Runs</th><th scope="col">Last error</th></tr></thead><tbody>${rows}</tbody></table>`}`;
  return htmlResponse(page(context.page, 'inbox', 'Inbox', body));
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
