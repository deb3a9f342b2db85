import { payloadRemoved } from '../../ports/retention.js';
import type { DeliveryFilter } from '../../dispatcher/delivery-filters.js';
import type { DispatcherCore as Dispatcher } from '../../dispatcher/dispatcher.js';
import { DispatcherError, RateLimitError } from '../../dispatcher/errors.js';
import type { Delivery, DeliveryDetail } from '../../dispatcher/records.js';
import { readsOfDispatcher } from '../../dispatcher/reads.js';
import type { LatestAnswer } from '../../ports/dispatch-reads.js';
import { retryMatching } from '../bulk-retry.js';
import { deliveryFilterOf, filterForm, filterQuery, filterValuesOf, FILTER_PARAMS, type FilterValues } from '../delivery-filter-form.js';
import { html, type Content, type Html } from '../html.js';
import { htmlResponse, redirect, type DashboardResponse } from '../http.js';
import { actionForm, codeBlock, csrfField, mayAct, notice, page, statusBadge, timeOf, type PageContext } from '../layout.js';
import { noticeText } from '../notices.js';
import { deliveryTimeline, timelineView } from '../delivery-timeline.js';
import { lastPageOf, pageOf, pagePosition } from '../pager.js';
import { dispatcherOf, type Route, type RouteContext } from '../routes.js';
import { shownRegistration } from '../registration-name.js';

/** Deliveries per page of the list. */
export const PAGE_SIZE = 50;


/** The delivery log: the filtered list, one delivery with its attempts, retries. */
export const DELIVERY_ROUTES: readonly Route[] = [
  { method: 'GET', path: '/deliveries', handler: listPage },
  { method: 'GET', path: '/deliveries/retry', handler: confirmRetryPage },
  { method: 'POST', path: '/deliveries/retry', handler: retryAll },
  { method: 'GET', path: '/deliveries/:id', handler: detailPage },
  { method: 'POST', path: '/deliveries/:id/retry', handler: retryOne },
];

/**
 * The filter of the URL, `q` resolved: an event id when a delivery of that event matches,
 * otherwise a correlation id.
 */
async function resolveFilter(dispatcher: Dispatcher, values: FilterValues): Promise<DeliveryFilter> {
  const filter = deliveryFilterOf(values);
  if (values.q === undefined) return filter;
  const byEvent = { ...filter, event_id: values.q };
  return (await dispatcher.deliveries.count(byEvent)) > 0 ? byEvent : { ...filter, correlation_id: values.q };
}

/** A filter the dispatcher refuses is shown as a problem on the page, not as an error page. */
function filterProblem(error: unknown): string {
  if (error instanceof DispatcherError && (error.code === 'VALIDATION_ERROR' || error.code === 'UNKNOWN_EVENT_TYPE')) {
    const { field, reason } = error.details as { field?: string; reason?: string };
    return `The filter ${field ?? ''} is not usable: ${reason ?? error.message} (${error.code})`;
  }
  throw error;
}

async function listPage(context: RouteContext): Promise<DashboardResponse> {
  const dispatcher = dispatcherOf(context);
  const { base } = context.page;
  const values = filterValuesOf(context.query);
  const webhooks = await dispatcher.webhooks.list();
  const form = filterForm(`${base}/deliveries`, values, webhooks.map((webhook) => ({ id: webhook.id, url: shownRegistration(context.page.registrationName, webhook).url })));
  let filter: DeliveryFilter;
  let total: number;
  try {
    filter = await resolveFilter(dispatcher, values);
    total = await dispatcher.deliveries.count(filter);
  } catch (error) {
    const problem = filterProblem(error);
    return htmlResponse(page(context.page, 'deliveries', 'Deliveries', html`${form}${notice(problem, 'problem')}`), 422);
  }
  const lastPage = lastPageOf(total, PAGE_SIZE);
  const current = pageOf(context.query, lastPage);
  const deliveries = await dispatcher.deliveries.list({ ...filter, limit: PAGE_SIZE, offset: (current - 1) * PAGE_SIZE });
  const answers = await latestAnswers(dispatcher, deliveries);
  const urls = new Map(webhooks.map((webhook) => [webhook.id, shownRegistration(context.page.registrationName, webhook).url]));
  const position = pagePosition({ total, current, pageSize: PAGE_SIZE, shown: deliveries.length, noun: 'deliveries', link: (to) => `${base}/deliveries${filterQuery(values, { page: String(to) })}` });
  const retryAllLink = total > 0 && mayAct(context.page) ? html`<p class="actions"><a class="button secondary" href="${base}/deliveries/retry${filterQuery(values)}">Retry all ${total.toLocaleString('en')} matching…</a></p>` : '';
  const table =
    deliveries.length === 0
      ? html`<p>No delivery matches.</p>`
      : html`<table><caption class="muted">Newest first</caption>
<thead><tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col">Registration</th><th scope="col">Status</th><th scope="col" class="num">Attempts</th><th scope="col">Last HTTP status</th><th scope="col">Next attempt</th></tr></thead>
<tbody>${deliveries.map((delivery) => deliveryRow(context.page, delivery, answers.get(delivery.id), urls.get(delivery.webhook_id)))}</tbody></table>`;
  const body = html`${form}${position}${retryAllLink}${table}${deliveries.length > 0 ? position : ''}`;
  return htmlResponse(page(context.page, 'deliveries', 'Deliveries', body));
}

/**
 * The latest attempt's answer of each listed delivery: one query where the store offers its reads,
 * else each delivery with its attempts (a round trip or two per row on PostgreSQL).
 */
async function latestAnswers(dispatcher: Dispatcher, deliveries: readonly Delivery[]): Promise<Map<string, Omit<LatestAnswer, 'delivery_id'>>> {
  const reads = await readsOfDispatcher(dispatcher);
  if (reads) return new Map((await reads.latestAnswers(deliveries.map((delivery) => delivery.id))).map((answer) => [answer.delivery_id, answer]));
  const details = await Promise.all(deliveries.map((delivery) => dispatcher.deliveries.get(delivery.id)));
  return new Map(details.flatMap((detail: DeliveryDetail) => {
    const last = detail.attempts.at(-1);
    return last ? [[detail.id, { response_status: last.response_status, error_kind: last.error_kind }] as const] : [];
  }));
}

function lastStatus(last: Omit<LatestAnswer, 'delivery_id'> | undefined): Html {
  if (last === undefined) return html`<span class="muted">not attempted</span>`;
  if (last.response_status === null) return statusBadge('none', last.error_kind ?? 'no answer');
  return statusBadge(`${String(last.response_status).slice(0, 1)}xx`, String(last.response_status));
}

function deliveryRow(context: PageContext, delivery: Delivery, last: Omit<LatestAnswer, 'delivery_id'> | undefined, url: string | undefined): Html {
  return html`<tr>
<td>${timeOf(delivery.created_at)}</td>
<td><a href="${context.base}/deliveries/${encodeURIComponent(delivery.id)}">${delivery.event_type}</a>${delivery.test ? html` <span class="muted">(test)</span>` : ''}${delivery.replay ? html` <span class="muted">(replay)</span>` : ''}<br><span class="muted mono">${delivery.event_id}</span></td>
<td>${url ?? html`<span class="muted mono">${delivery.webhook_id}</span>`}</td>
<td>${statusBadge(delivery.status)}</td>
<td class="num">${delivery.attempt_count}</td>
<td>${lastStatus(last)}</td>
<td>${timeOf(delivery.next_attempt_at)}</td>
</tr>`;
}

async function detailPage(context: RouteContext, messages: { problem?: string } = {}): Promise<DashboardResponse> {
  const dispatcher = dispatcherOf(context);
  const delivery = await dispatcher.deliveries.get(context.params.id!);
  const timeline = timelineView(deliveryTimeline(delivery, dispatcher.settings.schedule, context.now), context.now);
  const id = encodeURIComponent(delivery.id);
  const payload = delivery.attempts[0]?.request_payload;
  const attempts = [...delivery.attempts].reverse().map((attempt) => attemptSection(attempt));
  const body = html`${notice(noticeText(context.query.get('notice')))}${notice(messages.problem, 'problem')}
<dl class="facts">
<dt>Delivery</dt><dd class="mono">${delivery.id}</dd>
<dt>Status</dt><dd>${statusBadge(delivery.status)}${delivery.test ? ' (test delivery)' : ''}${delivery.replay ? ' (replay: queued again by a replay of a time range)' : ''}</dd>
<dt>Event</dt><dd>${delivery.event_type} · <a class="mono" href="${context.page.base}/deliveries${filterQuery({ q: delivery.event_id })}">${delivery.event_id}</a></dd>
<dt>Correlation id</dt><dd><a class="mono" href="${context.page.base}/deliveries${filterQuery({ q: delivery.correlation_id })}">${delivery.correlation_id}</a></dd>
<dt>Registration</dt><dd><a class="mono" href="${context.page.base}/webhooks/${encodeURIComponent(delivery.webhook_id)}">${shownRegistration(context.page.registrationName, { id: delivery.webhook_id }).id}</a></dd>
<dt>Attempts</dt><dd>${delivery.attempt_count} (${delivery.automatic_attempt_count} by the schedule)</dd>
<dt>Next attempt</dt><dd>${timeOf(delivery.next_attempt_at)}</dd>
<dt>Created</dt><dd>${timeOf(delivery.created_at)}</dd>
</dl>
<div class="actions">${actionForm(context.page, `/deliveries/${id}/retry`, 'Retry now')}</div>
${timeline}
<h2>Request payload</h2>
${payload === undefined ? html`<p class="muted">Not sent yet.</p>` : payloadRemoved(payload) ? html`<p class="muted">Payload no longer kept.</p>` : codeBlock('payload', 'the request payload', payload)}
<h2>Attempts, newest first</h2>
${attempts.length === 0 ? html`<p class="muted">No attempt yet.</p>` : attempts}`;
  return htmlResponse(page(context.page, 'deliveries', `Delivery of ${delivery.event_type}`, body), messages.problem ? 429 : 200);
}

function attemptSection(attempt: DeliveryDetail['attempts'][number]): Html {
  const answer: Content =
    attempt.response_body === null
      ? html`<p class="muted">No answer.</p>`
      : payloadRemoved(attempt.response_body)
        ? html`<h4>Response body</h4><p class="muted">Payload no longer kept.</p>`
        : html`<h4>Response body${attempt.response_body_truncated ? ' (cut at 64 KiB)' : ''}</h4><pre tabindex="0" role="region" aria-label="Response body of attempt ${attempt.attempt_number}">${attempt.response_body}</pre>`;
  return html`<section class="attempt" aria-labelledby="attempt-${attempt.attempt_number}">
<h3 id="attempt-${attempt.attempt_number}">Attempt ${attempt.attempt_number}${attempt.manual ? ' (manual)' : ''}</h3>
<dl class="facts">
<dt>Time</dt><dd>${timeOf(attempt.attempted_at)}</dd>
<dt>HTTP status</dt><dd>${attempt.response_status ?? html`<span class="muted">none</span>`}</dd>
<dt>Response time</dt><dd>${attempt.response_time_ms} ms</dd>
<dt>Receiver IP</dt><dd class="mono">${attempt.receiver_ip ?? '—'}</dd>
<dt>Correlation id</dt><dd class="mono">${attempt.correlation_id}</dd>
<dt>URL</dt><dd>${attempt.url}</dd>
<dt>Error</dt><dd>${attempt.error_kind === null ? html`<span class="muted">none</span>` : html`<strong>${attempt.error_kind}</strong>${attempt.error_message ? html`: ${attempt.error_message}` : ''}`}</dd>
</dl>
${answer}
</section>`;
}

function limitMessage(error: RateLimitError): string {
  return `The manual-retry limit is reached: at most ${error.details.limit} retries per ${error.details.window}. Retry again after ${error.details.reset_at} (in ${error.details.retry_after} s).`;
}

async function retryOne(context: RouteContext): Promise<DashboardResponse> {
  const id = context.params.id!;
  try {
    await dispatcherOf(context).deliveries.retry(id);
  } catch (error) {
    if (!(error instanceof RateLimitError)) throw error;
    return detailPage({ ...context, query: new URLSearchParams() }, { problem: limitMessage(error) });
  }
  return redirect(`${context.page.base}/deliveries/${encodeURIComponent(id)}?notice=retried`);
}

function describeFilter(values: FilterValues): Content {
  const given = FILTER_PARAMS.filter((name) => values[name] !== undefined);
  if (given.length === 0) return html`every delivery`;
  return html`${given.map((name, index) => html`${index > 0 ? ', ' : ''}${name} = <code>${values[name]}</code>`)}`;
}

async function confirmRetryPage(context: RouteContext): Promise<DashboardResponse> {
  const dispatcher = dispatcherOf(context);
  const values = filterValuesOf(context.query);
  let count: number;
  try {
    count = await dispatcher.deliveries.count(await resolveFilter(dispatcher, values));
  } catch (error) {
    return htmlResponse(page(context.page, 'deliveries', 'Retry matching deliveries', notice(filterProblem(error), 'problem')), 422);
  }
  const { max, windowMs } = dispatcher.settings.manualRetryLimit;
  const minutes = Math.round(windowMs / 60_000);
  const hidden = FILTER_PARAMS.flatMap((name) => (values[name] === undefined ? [] : [html`<input type="hidden" name="${name}" value="${values[name]}">`]));
  const body = html`<p><strong id="match-count">${count.toLocaleString('en')}</strong> deliveries match: ${describeFilter(values)}.</p>
<p>The platform allows at most ${max} manual retries per ${minutes} minutes. ${count > max ? html`Only the newest ${max} can be retried now; the others stay as they are.` : 'All of them can be retried now if the limit has not been used.'} Each retry is an attempt sent now.</p>
<form method="post" action="${context.page.base}/deliveries/retry" class="actions">${csrfField(context.page)}${hidden}
<button type="submit">Retry ${count > max ? `the newest ${max}` : `all ${count}`}</button>
<a href="${context.page.base}/deliveries${filterQuery(values)}">Cancel</a></form>`;
  return htmlResponse(page(context.page, 'deliveries', 'Retry matching deliveries', body));
}

async function retryAll(context: RouteContext): Promise<DashboardResponse> {
  const dispatcher = dispatcherOf(context);
  const values = filterValuesOf(context.form);
  const result = await retryMatching(dispatcher, await resolveFilter(dispatcher, values));
  const retried = result.delivered + result.failed;
  const limit = result.limit ? notice(limitMessage(result.limit), 'problem') : '';
  const body = html`<p class="notice" role="status">Retried <strong id="retried-count">${retried}</strong> of ${result.matched} matching deliveries: ${result.delivered} delivered, ${result.failed} failed again.${result.notRetried > 0 ? ` ${result.notRetried} were not retried.` : ''}</p>
${limit}
<p><a href="${context.page.base}/deliveries${filterQuery(values)}">Back to the deliveries</a></p>`;
  return htmlResponse(page(context.page, 'deliveries', 'Retry matching deliveries', body), result.limit ? 429 : 200);
}

