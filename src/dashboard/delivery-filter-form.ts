import type { DeliveryFilter, ResponseStatusClass } from '../dispatcher/delivery-filters.js';
import { RESPONSE_STATUS_CLASSES } from '../dispatcher/delivery-filters.js';
import type { WebhookRegistration } from '../dispatcher/records.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../ports/dispatch-statuses.js';
import { EVENT_TYPES } from '../events/catalog.js';
import { html, type Html } from './html.js';

/** The filter fields of the deliveries page, as named in its URL. */
export const FILTER_PARAMS = ['status', 'event_type', 'webhook_id', 'from', 'to', 'http', 'q'] as const;
export type FilterParam = (typeof FILTER_PARAMS)[number];

/** The filters as given in the URL (empty ones left out). */
export type FilterValues = Partial<Record<FilterParam, string>>;

export function filterValuesOf(params: URLSearchParams): FilterValues {
  const values: FilterValues = {};
  for (const name of FILTER_PARAMS) {
    const value = params.get(name)?.trim();
    if (value) values[name] = value;
  }
  return values;
}

/** The query string of the filters (and extra parameters), for links that keep them. */
export function filterQuery(values: FilterValues, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...values, ...extra })) if (value !== undefined) params.set(name, value);
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * The dispatcher's filter for the URL's values; `q` is left to the caller (an event id or a
 * correlation id). A time without a zone is UTC, as the pages show times.
 */
export function deliveryFilterOf(values: FilterValues): DeliveryFilter {
  const filter: DeliveryFilter = {};
  if (values.status !== undefined) filter.status = values.status as DeliveryStatus;
  if (values.event_type !== undefined) filter.event_type = values.event_type as never;
  if (values.webhook_id !== undefined) filter.webhook_id = values.webhook_id;
  if (values.from !== undefined) filter.created_after = utc(values.from);
  if (values.to !== undefined) filter.created_before = utc(values.to);
  if (values.http !== undefined) filter.response_status_class = values.http as ResponseStatusClass;
  return filter;
}

function utc(local: string): string {
  return /(Z|[+-]\d\d:?\d\d)$/i.test(local) ? local : `${local}Z`;
}

function options(values: readonly (readonly [string, string])[], selected: string | undefined, anyLabel: string): Html {
  return html`<option value="">${anyLabel}</option>${values.map(([value, label]) => html`<option value="${value}"${value === selected ? html` selected` : ''}>${label}</option>`)}`;
}

const EVENT_TYPE_CHOICES = [...new Set(EVENT_TYPES.map((type) => `${type.split('.')[0]!}.*`))].flatMap((group) => [
  [group, group] as const,
  ...EVENT_TYPES.filter((type) => type.startsWith(group.slice(0, -1))).map((type) => [type, `  ${type}`] as const),
]);

/** A label and its control, tied by id (the label's name is its text alone, not the options'). */
function field(name: FilterParam, label: string, control: Html): Html {
  return html`<span class="field"><label for="filter-${name}">${label}</label>${control}</span>`;
}

/** The GET form of the filters: works without JavaScript, and its URL is the view's address. */
export function filterForm(action: string, values: FilterValues, webhooks: readonly Pick<WebhookRegistration, 'id' | 'url'>[]): Html {
  return html`<form class="filters" method="get" action="${action}" role="search" aria-label="Filter deliveries">
${field('status', 'Status', html`<select id="filter-status" name="status">${options(DELIVERY_STATUSES.map((status) => [status, status.replace('_', ' ')] as const), values.status, 'any')}</select>`)}
${field('event_type', 'Event type', html`<select id="filter-event_type" name="event_type">${options(EVENT_TYPE_CHOICES, values.event_type, 'any')}</select>`)}
${field('webhook_id', 'Registration', html`<select id="filter-webhook_id" name="webhook_id">${options(webhooks.map((webhook) => [webhook.id, webhook.url] as const), values.webhook_id, 'any')}</select>`)}
${field('from', 'Created from (UTC)', html`<input id="filter-from" type="datetime-local" name="from" value="${values.from ?? ''}" step="1">`)}
${field('to', 'Created before (UTC)', html`<input id="filter-to" type="datetime-local" name="to" value="${values.to ?? ''}" step="1">`)}
${field('http', 'Last HTTP status', html`<select id="filter-http" name="http">${options(RESPONSE_STATUS_CLASSES.map((kind) => [kind, kind === 'none' ? 'no answer' : kind] as const), values.http, 'any')}</select>`)}
${field('q', 'Event id or correlation id', html`<input id="filter-q" type="search" name="q" value="${values.q ?? ''}" size="28">`)}
<button type="submit">Filter</button> <a href="${action}">Clear</a>
</form>`;
}
