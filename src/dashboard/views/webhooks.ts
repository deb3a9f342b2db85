import { DispatcherError } from '../../dispatcher/errors.js';
import { MAX_REPLAY_EVENTS } from '../../dispatcher/replay.js';
import type { WebhookRegistration } from '../../dispatcher/records.js';
import { EVENT_CATALOG, EVENT_GROUPS, EVENT_TYPES, type EventGroup } from '../../events/catalog.js';
import { WEBHOOK_LABELS } from '../../ports/webhook-fields.js';
import { DashboardError } from '../errors.js';
import { html, type Content, type Html } from '../html.js';
import { htmlResponse, redirect, type DashboardResponse } from '../http.js';
import { actionForm, csrfField, mayAct, notice, page, page as layoutPage, statusBadge, timeOf, type PageContext } from '../layout.js';
import { noticeText } from '../notices.js';
import { disableCountdown, lastAttempt, registrationHealth, responseTimes, sparkline, successRate } from '../registration-health.js';
import { dispatcherOf, type Route, type RouteContext } from '../routes.js';
import { shownRegistration } from '../registration-name.js';
import { SIGNING_ALGORITHMS, WEBHOOK_SCHEMES, type SigningAlgorithm, type WebhookScheme } from '../../ports/dispatch-statuses.js';

/** How each scheme is named in the forms. */
const SCHEME_NAMES: Readonly<Record<WebhookScheme, string>> = {
  svc: "The platform's (x-svc-signature)",
  'standard-webhooks': 'Standard Webhooks (webhook-signature)',
  both: 'Both header sets on every request',
};
const ALGORITHM_NAMES: Readonly<Record<SigningAlgorithm, string>> = {
  'hmac-sha256': 'HMAC-SHA256 with a shared whsec_ secret',
  ed25519: 'ed25519 key pair (Standard Webhooks v1a; the receiver gets the whpk_ public key)',
};
/** The graces the rotation form offers, in milliseconds. */
const GRACES: readonly (readonly [string, number])[] = [
  ['none: the old secret stops now', 0],
  ['1 hour', 3_600_000],
  ['24 hours', 86_400_000],
  ['7 days', 7 * 86_400_000],
];

/** The scheme, and the algorithm when it is not the default. */
function signingOf(webhook: WebhookRegistration): string {
  return webhook.algorithm === 'hmac-sha256' ? webhook.scheme : `${webhook.scheme}, ${webhook.algorithm}`;
}

/**
 * Fields of a registration this page lays out itself (checked against the record's type); any
 * other field of WEBHOOK_FIELDS is listed as it is, under its label from the field list.
 */
const KNOWN_FIELDS: ReadonlySet<string> = new Set([
  'id', 'url', 'events', 'headers', 'status', 'created_at', 'updated_at',
  'disabled_reason', 'disabled_at', 'failure_streak', 'failing_since', 'last_failure_at', 'rate_limit', 'in_flight', 'skipped_events',
  'scheme', 'algorithm', 'public_key', 'previous_secret_expires_at',
] as const satisfies readonly (keyof WebhookRegistration)[]);

/** A field's label: the field list's, or its name in words for one this version does not know. */
const labelOf = (key: string): string => (Object.hasOwn(WEBHOOK_LABELS, key) ? WEBHOOK_LABELS[key as keyof typeof WEBHOOK_LABELS] : key.replaceAll('_', ' '));

/** The registration's health in a few words: disabled (and why), failing (how long), or fine. */
function healthOf(webhook: WebhookRegistration): Html {
  if (webhook.status === 'disabled') {
    const why = webhook.disabled_reason === 'failing' ? 'disabled by the dispatcher after failing' : 'disabled by hand';
    return html`${statusBadge('disabled', why)}${webhook.skipped_events > 0 ? html`<br>${webhook.skipped_events} events skipped` : ''}`;
  }
  if (webhook.failure_streak > 0) return html`${statusBadge('failed', `${webhook.failure_streak} failed in a row`)}<br>since ${timeOf(webhook.failing_since)}`;
  return statusBadge('active', 'healthy');
}


/** The registration pages: list, create, show, edit, test delivery, rotate secret, enable/disable. */
export const WEBHOOK_ROUTES: readonly Route[] = [
  { method: 'GET', path: '/webhooks', handler: listPage },
  { method: 'GET', path: '/webhooks/new', handler: (context) => Promise.resolve(htmlResponse(formPage(context.page, undefined, emptyForm()))) },
  { method: 'POST', path: '/webhooks', handler: create },
  { method: 'GET', path: '/webhooks/:id', handler: showPage },
  { method: 'POST', path: '/webhooks/:id', handler: update },
  { method: 'POST', path: '/webhooks/:id/test', handler: sendTest },
  { method: 'POST', path: '/webhooks/:id/rotate-secret', handler: rotateSecret },
  { method: 'POST', path: '/webhooks/:id/status', handler: setStatus },
  { method: 'POST', path: '/webhooks/:id/replay', handler: replayTimeRange },
];

/** How many registrations one page of the list shows. */
const REGISTRATIONS_PAGE_SIZE = 50;

async function listPage(context: RouteContext): Promise<DashboardResponse> {
  const dispatcher = dispatcherOf(context);
  const cursor = context.query.get('cursor') ?? undefined;
  const [page, counts, health] = await Promise.all([
    listOrFirstPage(dispatcher, cursor),
    dispatcher.webhooks.count(),
    registrationHealth(dispatcher, context.now),
  ]);
  const webhooks = page.data;
  const { base } = context.page;
  const disableAfterMs = dispatcher.settings.disableFailingAfterMs;
  const rows = webhooks.map((webhook) => {
    const stats = health.stats?.get(webhook.id);
    const name = shownRegistration(context.page.registrationName, webhook);
    return html`<tr>
<td class="registration"><a href="${base}/webhooks/${encodeURIComponent(webhook.id)}">${name.url}</a><br><span class="muted mono">${name.id}</span>${name.id === webhook.id ? '' : html` <span class="muted">(dispatcher: <span class="mono">${webhook.id}</span>)</span>`}<br><span class="muted">signed: ${signingOf(webhook)}</span><br>${ownerOf(webhook)}</td>
<td>${webhook.events.join(', ')}</td>
<td>${statusBadge(webhook.status)}</td>
<td>${healthOf(webhook)}${disableCountdown(webhook, disableAfterMs, context.now)}</td>
${health.stats === undefined ? '' : html`<td>${successRate(stats)}<br>${sparkline(health, stats)}</td><td>${responseTimes(stats)}</td><td>delivered ${lastAttempt(base, stats, 'last_delivered')}<br>failed ${lastAttempt(base, stats, 'last_failed')}</td>`}
<td class="headers">${headerNames(webhook)}</td>
<td>${timeOf(webhook.created_at)}</td>
<td><a href="${base}/deliveries?webhook_id=${encodeURIComponent(webhook.id)}">Deliveries</a></td>
</tr>`;
  });
  const healthColumns = health.stats === undefined ? '' : html`<th scope="col">Last 24 hours</th><th scope="col">Response time</th><th scope="col">Latest attempts</th>`;
  const table =
    webhooks.length === 0
      ? html`<p>No webhooks are registered yet.</p>`
      : html`<table class="registrations"><caption class="muted">${pageCaption(webhooks.length, counts.total, cursor !== undefined)}, oldest first; the last 24 hours from their attempts</caption>
<thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col">Health</th>${healthColumns}<th scope="col">Custom headers</th><th scope="col">Created</th><th scope="col"><span class="muted">Log</span></th></tr></thead>
<tbody>${rows}</tbody></table>`;
  const register = mayAct(context.page) ? html`<p class="actions"><a class="button" href="${base}/webhooks/new">Register a webhook</a></p>` : '';
  const pager = page.next_cursor === null && cursor === undefined
    ? ''
    : html`<p class="pager">${cursor === undefined ? '' : html`<a href="${base}/webhooks">← First page</a> `}${page.next_cursor === null ? '' : html`<a href="${base}/webhooks?cursor=${encodeURIComponent(page.next_cursor)}" rel="next">Next ${REGISTRATIONS_PAGE_SIZE} →</a>`}</p>`;
  const body = html`${notice(noticeText(context.query.get('notice')))}${register}${table}${pager}`;
  return htmlResponse(layoutPage(context.page, 'webhooks', 'Registrations', body));
}

/** A page of the list; a cursor that is not one (edited by hand, from an older version) starts over. */
async function listOrFirstPage(dispatcher: ReturnType<typeof dispatcherOf>, cursor: string | undefined) {
  try {
    return await dispatcher.webhooks.list({ limit: REGISTRATIONS_PAGE_SIZE, ...(cursor === undefined ? {} : { cursor }) });
  } catch (error) {
    if (cursor === undefined || !(error instanceof DispatcherError) || error.code !== 'VALIDATION_ERROR') throw error;
    return dispatcher.webhooks.list({ limit: REGISTRATIONS_PAGE_SIZE });
  }
}

/** "3 registrations", or "50 of 120 registrations" when the list has more pages. */
function pageCaption(shown: number, total: number, later: boolean): string {
  return shown === total && !later ? `${total} registration(s)` : `${shown} of ${total.toLocaleString('en')} registrations on this page`;
}

async function showPage(context: RouteContext): Promise<DashboardResponse> {
  const dispatcher = dispatcherOf(context);
  const webhook = await dispatcher.webhooks.get(context.params.id!);
  const health = await registrationHealth(dispatcher, context.now, webhook.id);
  const stats = health.stats?.get(webhook.id);
  const section = html`<section aria-labelledby="health-heading" class="health"><h2 id="health-heading">Health, last 24 hours</h2>
${health.stats === undefined ? html`<p class="muted">This dispatcher's store does not offer the reads for health.</p>` : html`<dl class="facts">
<dt>Delivered</dt><dd>${successRate(stats)}</dd>
<dt>Attempts per hour</dt><dd>${sparkline(health, stats)}</dd>
<dt>Response time</dt><dd>${responseTimes(stats)}</dd>
<dt>Failure streak</dt><dd>${webhook.failure_streak === 0 ? 'none' : html`${webhook.failure_streak} failed in a row since ${timeOf(webhook.failing_since)}`}${disableCountdown(webhook, dispatcher.settings.disableFailingAfterMs, context.now)}</dd>
<dt>Last delivered</dt><dd>${lastAttempt(context.page.base, stats, 'last_delivered')}</dd>
<dt>Last failed</dt><dd>${lastAttempt(context.page.base, stats, 'last_failed')}</dd>
</dl>`}</section>`;
  return htmlResponse(detailPage(context.page, webhook, { notice: noticeText(context.query.get('notice')), health: section }));
}

function detailPage(
  context: PageContext,
  webhook: WebhookRegistration,
  messages: { notice?: string | undefined; problem?: string; secret?: string; form?: FormValues; health?: Html; replay?: ReplayValues },
): Html {
  const id = encodeURIComponent(webhook.id);
  const name = shownRegistration(context.registrationName, webhook);
  const extra = Object.entries(webhook).filter(([key]) => !KNOWN_FIELDS.has(key));
  const publicKey = messages.secret !== undefined && messages.secret === webhook.public_key;
  const secret = messages.secret
    ? publicKey
      ? html`<div class="notice" role="status"><p><strong>The new public key.</strong> Give it to the receiver; it stays shown below. The private key never leaves the dispatcher.</p><p><code class="secret" id="secret">${messages.secret}</code></p><button type="button" class="secondary" data-copy="secret" hidden>Copy the public key</button><span id="secret-status" role="status" class="muted"></span></div>`
      : html`<div class="notice" role="status"><p><strong>The new signing secret.</strong> It is shown this once: copy it to the receiver now.</p><p><code class="secret" id="secret">${messages.secret}</code></p><button type="button" class="secondary" data-copy="secret" hidden>Copy the secret</button><span id="secret-status" role="status" class="muted"></span></div>`
    : '';
  const grace =
    webhook.previous_secret_expires_at === null
      ? ''
      : html`<dt>${WEBHOOK_LABELS.previous_secret_expires_at}</dt><dd>${timeOf(webhook.previous_secret_expires_at)} (after a rotation the previous secret signs beside the new one until then)</dd>`;
  const replay =
    webhook.status === 'disabled' && webhook.skipped_events > 0
      ? actionForm(context, `/webhooks/${id}/status`, `Enable and send the ${webhook.skipped_events} skipped events`, { fields: { status: 'active', replay: '1' } })
      : '';
  const toggle =
    webhook.status === 'active'
      ? actionForm(context, `/webhooks/${id}/status`, 'Disable', { fields: { status: 'disabled' }, style: 'danger' })
      : html`${actionForm(context, `/webhooks/${id}/status`, 'Enable', { fields: { status: 'active' }, style: replay ? 'secondary' : '' })}${replay}`;
  const content = html`${notice(messages.notice)}${notice(messages.problem, 'problem')}${secret}
<dl class="facts">
<dt>${WEBHOOK_LABELS.id}</dt><dd class="mono">${name.id}</dd>
${name.id === webhook.id ? '' : html`<dt>Dispatcher id</dt><dd class="mono">${webhook.id}</dd>`}
<dt>${WEBHOOK_LABELS.url}</dt><dd>${name.url}${name.deliveredTo === undefined ? '' : html`<br><span class="muted">delivered through ${name.deliveredTo}</span>`}</dd>
<dt>${WEBHOOK_LABELS.events}</dt><dd>${webhook.events.join(', ')}</dd>
<dt>${WEBHOOK_LABELS.status}</dt><dd>${statusBadge(webhook.status)}${webhook.disabled_at ? html` since ${timeOf(webhook.disabled_at)}` : ''}</dd>
<dt>Health</dt><dd>${healthOf(webhook)}${webhook.last_failure_at ? html`; last failure ${timeOf(webhook.last_failure_at)}` : ''}</dd>
<dt>In flight</dt><dd>${webhook.in_flight} attempts${webhook.rate_limit === null ? '' : html`; at most ${webhook.rate_limit} attempts a second`}</dd>
<dt>${WEBHOOK_LABELS.headers}</dt><dd>${headerNames(webhook)}</dd>
<dt>${WEBHOOK_LABELS.scheme}</dt><dd><code>${webhook.scheme}</code> — ${SCHEME_NAMES[webhook.scheme]}</dd>
<dt>${WEBHOOK_LABELS.algorithm}</dt><dd><code>${webhook.algorithm}</code></dd>
${webhook.public_key === null ? '' : html`<dt>${WEBHOOK_LABELS.public_key}</dt><dd><code class="mono">${webhook.public_key}</code></dd>`}
${grace}
${extra.map(([key, value]) => html`<dt>${labelOf(key)}</dt><dd>${typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value) ? timeOf(value) : JSON.stringify(value)}</dd>`)}
<dt>${WEBHOOK_LABELS.created_at}</dt><dd>${timeOf(webhook.created_at)}</dd>
<dt>${WEBHOOK_LABELS.updated_at}</dt><dd>${timeOf(webhook.updated_at)}</dd>
</dl>
<div class="actions">
${actionForm(context, `/webhooks/${id}/test`, 'Send a test delivery')}
${rotateForm(context, id)}
${toggle}
<a href="${context.base}/deliveries?webhook_id=${id}">Its deliveries</a>
</div>
${messages.health ?? ''}
${mayAct(context) ? replayForm(context, webhook, messages.replay) : ''}
${mayAct(context) ? html`<h2>Edit</h2>
${registrationForm(context, `/webhooks/${id}`, messages.form ?? formOf(webhook), 'Save the registration', Object.keys(webhook.headers), webhook.algorithm)}` : ''}
${context.portal && mayAct(context) ? html`<h2>Delete</h2><p>Deleting stops every delivery to this URL; its delivery log stays readable.</p>${actionForm(context, `/webhooks/${id}/delete`, 'Delete this webhook', { style: 'danger' })}` : ''}`;
  return page(context, 'webhooks', `Registration ${name.url}`, content);
}

/** What the replay form was sent with, shown again after a refusal. */
interface ReplayValues {
  from: string;
  to: string;
  types: string;
  business_id: string;
}

/** Replay by time range: the business's events of [from, to) queued to this registration once more. */
function replayForm(context: PageContext, webhook: WebhookRegistration, values: ReplayValues = { from: '', to: '', types: '', business_id: '' }): Html {
  const id = encodeURIComponent(webhook.id);
  const business =
    webhook.business_id === null
      ? html`<label>The business whose events to replay (this registration receives every business's) <input name="business_id" required value="${values.business_id}"></label>`
      : '';
  return html`<h2>Replay a time range</h2>
<p class="muted">Queues the events of ${webhook.business_id === null ? 'a business' : html`<span class="mono">${webhook.business_id}</span>`} created in the range, of the types this registration subscribes to, once more as new deliveries marked replay. An event with a delivery to it still pending is skipped; at most ${MAX_REPLAY_EVENTS} events at a time.</p>
<form class="stack" method="post" action="${context.base}/webhooks/${id}/replay">${csrfField(context)}
<label>From (UTC, inclusive) <input name="from" type="datetime-local" step="1" required value="${values.from}"></label>
<label>To (UTC, exclusive; empty: now) <input name="to" type="datetime-local" step="1" value="${values.to}"></label>
<label>Only these types (comma-separated, e.g. invoice.*; empty: every type it subscribes to) <input name="types" value="${values.types}"></label>
${business}<button type="submit">Queue the range again</button>
</form>`;
}

function replayValues(form: URLSearchParams): ReplayValues {
  return { from: form.get('from')?.trim() ?? '', to: form.get('to')?.trim() ?? '', types: form.get('types')?.trim() ?? '', business_id: form.get('business_id')?.trim() ?? '' };
}

/** A datetime-local value (no zone) is UTC, as the form says; an ISO time with a zone is taken as it is. */
function utcTime(value: string): string {
  return /(Z|[+-]\d\d:?\d\d)$/i.test(value) ? value : `${value}Z`;
}

async function replayTimeRange(context: RouteContext): Promise<DashboardResponse> {
  const dispatcher = dispatcherOf(context);
  const id = context.params.id!;
  const values = replayValues(context.form);
  const types = values.types.split(',').map((type) => type.trim()).filter((type) => type !== '');
  let result;
  try {
    result = await dispatcher.webhooks.replay(id, {
      from: values.from === '' ? (undefined as never) : utcTime(values.from),
      ...(values.to === '' ? {} : { to: utcTime(values.to) }),
      ...(types.length === 0 ? {} : { types: types as never }),
      ...(values.business_id === '' ? {} : { business_id: values.business_id }),
    });
  } catch (error) {
    const problem = inputProblem(error);
    return htmlResponse(detailPage(context.page, await dispatcher.webhooks.get(id), { problem, replay: values }), 422);
  }
  const skipped = result.skipped === 0 ? '' : `; ${result.skipped} skipped (a delivery to it is still pending)`;
  const removed = result.payload_removed === 0 ? '' : `; ${result.payload_removed} no longer kept`;
  const notice = `Replay: ${result.matched} event(s) in the range, ${result.queued} queued${skipped}${removed}.`;
  return htmlResponse(detailPage(context.page, await dispatcher.webhooks.get(id), { notice }));
}

interface FormValues {
  url: string;
  events: readonly string[];
  headers: string;
  scheme: string;
  algorithm: string;
  /** The owner: a business id, or empty with `platform` checked for every business's events. */
  business_id: string;
  platform: boolean;
}

const emptyForm = (): FormValues => ({ url: '', events: [], headers: '', scheme: 'svc', algorithm: 'hmac-sha256', business_id: '', platform: false });

/** Whose events a registration receives, marked when it has no owner (the 1.0 kind). */
function ownerOf(webhook: WebhookRegistration): Html {
  if (webhook.scope === 'business') return html`<span class="muted">business <span class="mono">${webhook.business_id ?? ''}</span></span>`;
  if (webhook.scope === 'platform') return html`<span class="muted">every business (platform scope)</span>`;
  return html`<strong class="warning">every business — no owner: give it a business, or platform scope</strong>`;
}

/** Rotating: a new secret, with a grace during which the old one still signs. */
function rotateForm(context: PageContext, id: string): Content {
  if (!mayAct(context)) return '';
  return html`<form method="post" action="${context.base}/webhooks/${id}/rotate-secret" class="inline">${csrfField(context)}
<label>Grace <select name="grace_ms">${GRACES.map(([label, ms]) => html`<option value="${String(ms)}">${label}</option>`)}</select></label>
<button type="submit" class="secondary">Rotate the secret</button></form>`;
}

function choice(name: string, label: string, options: readonly string[], names: Readonly<Record<string, string>>, selected: string): Html {
  return html`<label>${label} <select name="${name}">${options.map((option) => html`<option value="${option}"${option === selected ? html` selected` : ''}>${names[option] ?? option}</option>`)}</select></label>`;
}

/** A registration's form: its custom header values are never rendered (they often hold a receiver's key), only kept. */
const formOf = (webhook: WebhookRegistration): FormValues => ({ url: webhook.url, events: webhook.events, headers: '', scheme: webhook.scheme, algorithm: webhook.algorithm, business_id: webhook.business_id ?? '', platform: webhook.scope === 'platform' });

/** The names of the custom headers; their values are never shown, as in the CLI. */
function headerNames(webhook: WebhookRegistration): Content {
  const names = Object.keys(webhook.headers);
  return names.length === 0 ? html`<span class="muted">none</span>` : html`${names.map((name) => html`<code>${name}</code> `)}<span class="muted">(values are not shown)</span>`;
}

function formPage(context: PageContext, problem: string | undefined, values: FormValues): Html {
  return page(context, 'webhooks', 'Register a webhook', html`${notice(problem, 'problem')}${registrationForm(context, '/webhooks', values, 'Register', undefined, undefined)}`);
}

/** The event choices: everything, each group, each type — derived from the event catalog. */
function eventChoices(selected: readonly string[], described = false): Html {
  const box = (value: string, label: Content) =>
    html`<label><input type="checkbox" name="events" value="${value}"${selected.includes(value) ? html` checked` : ''}> ${label}</label>`;
  const groups = (Object.keys(EVENT_GROUPS) as EventGroup[]).map((group) => {
    const types = EVENT_TYPES.filter((type) => EVENT_CATALOG[type].group === group);
    const prefix = `${types[0]!.split('.')[0]!}.*`;
    return html`<fieldset><legend>${EVENT_GROUPS[group].title}</legend><div class="choices">${box(prefix, html`<code>${prefix}</code> (all)`)}${types.map((type) => box(type, described ? html`<code>${type}</code> <span class="muted">when ${EVENT_CATALOG[type].emittedWhen}</span>` : html`<code>${type}</code>`))}</div></fieldset>`;
  });
  return html`<fieldset><legend>Events</legend><div class="choices">${box('*', html`<code>*</code> every event type`)}</div>${groups}</fieldset>`;
}

/** The form to register or edit; `existingHeaders` (editing) are kept unless replaced or removed. */
function registrationForm(context: PageContext, action: string, values: FormValues, submit: string, existingHeaders?: readonly string[], algorithm?: SigningAlgorithm): Html {
  const keep =
    existingHeaders && existingHeaders.length > 0
      ? html` Leave empty to keep the current ones (${existingHeaders.join(', ')}); lines replace them all.`
      : '';
  const remove =
    existingHeaders && existingHeaders.length > 0 ? html`<label class="inline"><input type="checkbox" name="remove_headers" value="1"> Remove every custom header</label>` : '';
  return html`<form class="stack" method="post" action="${context.base}${action}">${csrfField(context)}
<label>Receiver URL (https; plain http only to localhost when the dispatcher allows it)
<input type="url" name="url" required value="${values.url}" size="60" autocomplete="off"></label>
${action === '/webhooks' && context.portal === undefined ? html`<label>Business id (it receives this business's events only)
<input type="text" name="business_id" value="${values.business_id}" size="40" autocomplete="off"></label>
<label class="inline"><input type="checkbox" name="platform" value="1"${values.platform ? html` checked` : ''}> Every business's events (platform scope, leave the business empty)</label>` : ''}
${eventChoices(values.events, context.portal !== undefined)}
<label><span>Custom headers, one per line as <code>Name: value</code> (sent with every delivery).${keep}</span>
<textarea name="headers" rows="3" cols="60" spellcheck="false" autocomplete="off">${values.headers}</textarea></label>
${remove}
${choice('scheme', 'Signature headers', WEBHOOK_SCHEMES, SCHEME_NAMES, values.scheme)}
${algorithm === undefined ? choice('algorithm', 'Signing', SIGNING_ALGORITHMS, ALGORITHM_NAMES, values.algorithm) : html`<p class="muted">Signing: ${ALGORITHM_NAMES[algorithm]} (chosen when it was registered)</p>`}
<p><button type="submit">${submit}</button></p>
</form>`;
}

function formValues(form: URLSearchParams): FormValues {
  return {
    url: form.get('url')?.trim() ?? '',
    events: form.getAll('events'),
    headers: form.get('headers') ?? '',
    scheme: form.get('scheme') ?? 'svc',
    algorithm: form.get('algorithm') ?? 'hmac-sha256',
    business_id: form.get('business_id')?.trim() ?? '',
    platform: form.get('platform') === '1',
  };
}

/** `Name: value` lines → headers. @throws DashboardError VALIDATION_ERROR for a line without a colon */
function parseHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new DashboardError('VALIDATION_ERROR', `A custom header line needs "Name: value": ${line.trim()}`, { field: 'headers', reason: 'must be Name: value' });
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** Editing: blank keeps the custom headers (their values are never sent to the page), lines replace them, the checkbox removes them. */
function headerChange(text: string, remove: boolean): { headers?: Record<string, string> } {
  if (remove) return { headers: {} };
  return text.trim() === '' ? {} : { headers: parseHeaders(text) };
}

/** A refusal of the input as a message for the form; anything else is thrown on. */
function inputProblem(error: unknown): string {
  if ((error instanceof DispatcherError && error.code !== 'NOT_FOUND') || (error instanceof DashboardError && error.code === 'VALIDATION_ERROR')) {
    return `${error.message} (${error.code})`;
  }
  throw error;
}

async function create(context: RouteContext): Promise<DashboardResponse> {
  const values = formValues(context.form);
  let created;
  try {
    created = await dispatcherOf(context).webhooks.create({
      ...(values.business_id === '' ? {} : { business_id: values.business_id }),
      ...(values.platform ? { scope: 'platform' as const } : {}),
      url: values.url,
      events: values.events as never,
      headers: parseHeaders(values.headers),
      scheme: values.scheme as WebhookScheme,
      algorithm: values.algorithm as SigningAlgorithm,
    });
  } catch (error) {
    return htmlResponse(formPage(context.page, inputProblem(error), values), 422);
  }
  const { secret, ...webhook } = created;
  return htmlResponse(detailPage(context.page, webhook, { notice: 'The webhook is registered.', secret }), 201);
}

async function update(context: RouteContext): Promise<DashboardResponse> {
  const dispatcher = dispatcherOf(context);
  const id = context.params.id!;
  const values = formValues(context.form);
  try {
    await dispatcher.webhooks.update(id, {
      url: values.url,
      events: values.events as never,
      scheme: values.scheme as WebhookScheme,
      ...headerChange(values.headers, context.form.get('remove_headers') === '1'),
    });
  } catch (error) {
    const problem = inputProblem(error);
    return htmlResponse(detailPage(context.page, await dispatcher.webhooks.get(id), { problem, form: values }), 422);
  }
  return redirect(`${context.page.base}/webhooks/${encodeURIComponent(id)}?notice=saved`);
}

async function sendTest(context: RouteContext): Promise<DashboardResponse> {
  const delivery = await dispatcherOf(context).sendTest(context.params.id!);
  return redirect(`${context.page.base}/deliveries/${encodeURIComponent(delivery.id)}?notice=test-sent`);
}

async function rotateSecret(context: RouteContext): Promise<DashboardResponse> {
  const dispatcher = dispatcherOf(context);
  const id = context.params.id!;
  const graceMs = Number(context.form.get('grace_ms') ?? '0');
  let secret;
  try {
    secret = await dispatcher.webhooks.rotateSecret(id, { graceMs });
  } catch (error) {
    return htmlResponse(detailPage(context.page, await dispatcher.webhooks.get(id), { problem: inputProblem(error) }), 422);
  }
  const webhook = await dispatcher.webhooks.get(id);
  const notice = webhook.previous_secret_expires_at === null ? 'The secret was rotated: the old one stopped working now.' : `The secret was rotated: the old one keeps signing beside it until ${webhook.previous_secret_expires_at}.`;
  return htmlResponse(detailPage(context.page, webhook, { notice, secret }));
}

/** The portal's extra action: deleting a registration (its delivery log stays). */
export const DELETE_ROUTE: Route = { method: 'POST', path: '/webhooks/:id/delete', handler: deleteWebhook };

async function deleteWebhook(context: RouteContext): Promise<DashboardResponse> {
  await dispatcherOf(context).webhooks.delete(context.params.id!);
  return redirect(`${context.page.base}/webhooks?notice=deleted`);
}

async function setStatus(context: RouteContext): Promise<DashboardResponse> {
  const status = context.form.get('status');
  if (status !== 'active' && status !== 'disabled') throw new DashboardError('VALIDATION_ERROR', 'status must be active or disabled', { field: 'status', reason: 'must be active or disabled' });
  const id = context.params.id!;
  const { webhooks } = dispatcherOf(context);
  if (status === 'disabled') {
    await webhooks.update(id, { status });
    return redirect(`${context.page.base}/webhooks/${encodeURIComponent(id)}?notice=disabled`);
  }
  const replay = context.form.get('replay') === '1';
  await webhooks.enable(id, { replay });
  return redirect(`${context.page.base}/webhooks/${encodeURIComponent(id)}?notice=${replay ? 'enabled-replayed' : 'enabled'}`);
}
