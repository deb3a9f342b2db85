import { DispatcherError } from '../../dispatcher/errors.js';
import type { EventFeedQuery } from '../../dispatcher/events.js';
import type { EventPattern } from '../../events/catalog.js';
import type { SandboxContext } from '../context.js';
import { SandboxError } from '../errors.js';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from '../http/pagination.js';
import { ok } from '../http/response.js';
import type { Route } from '../http/router.js';

const QUERY = ['types', 'created_after', 'created_before', 'page', 'per_page', 'cursor', 'sort', 'order'];

/**
 * The events feed: `GET /v1/events` (every event of the key's account, oldest first, by the
 * document's `page` and `per_page` or by `cursor`) and `GET /v1/events/{id}`. The events are the
 * Dispatcher's (`dispatcher.events`), kept for its delivery log's retention.
 */
export function eventRoutes(context: SandboxContext): Route[] {
  const { dispatcher } = context;
  const business = () => context.account.business.id;
  return [
    {
      method: 'GET',
      path: '/v1/events',
      handler: async ({ query }) => {
        const criteria = readQuery(query);
        const perPage = criteria.limit ?? DEFAULT_PER_PAGE;
        const listed = await answered(() => dispatcher.events.list({ ...criteria, business_id: business(), limit: perPage }));
        if (criteria.cursor !== undefined) {
          const pagination = { page: null, per_page: perPage, total_count: null, total_pages: null, next_cursor: listed.next_cursor, has_more: listed.has_more };
          return { status: 200, body: { data: listed.data, pagination } };
        }
        const { cursor: _cursor, limit: _limit, page: _page, ...counted } = criteria;
        const total = await answered(() => dispatcher.events.count({ ...counted, business_id: business() }));
        const page = criteria.page ?? 1;
        const totalPages = Math.ceil(total / perPage);
        if (page > Math.max(1, totalPages)) {
          throw SandboxError.validation('page', `must be at most ${Math.max(1, totalPages)}, the last page (${total} ${total === 1 ? 'entry' : 'entries'} at per_page ${perPage})`, { malformed: true });
        }
        const pagination = { page, per_page: perPage, total_count: total, total_pages: totalPages, next_cursor: listed.next_cursor, has_more: listed.has_more };
        return { status: 200, body: { data: listed.data, pagination } };
      },
    },
    {
      method: 'GET',
      path: '/v1/events/:id',
      handler: async ({ params }) => {
        const event = await dispatcher.events.get(params.id!).catch(() => null);
        if (event === null) throw SandboxError.notFound('event', params.id!);
        if (event.business_id !== business()) throw SandboxError.forbidden('event', params.id!);
        return ok(event);
      },
    },
  ];
}

function readQuery(query: URLSearchParams): Omit<EventFeedQuery, 'business_id'> {
  for (const name of query.keys()) {
    if (!QUERY.includes(name)) throw SandboxError.validation(name, `is not a parameter of GET /v1/events (${QUERY.slice(0, 6).join(', ')})`, { malformed: true });
  }
  if ((query.get('sort') ?? 'created_at') !== 'created_at') throw SandboxError.validation('sort', 'must be created_at: the feed is in the order events were recorded', { malformed: true });
  if ((query.get('order') ?? 'asc') !== 'asc') throw SandboxError.validation('order', 'must be asc: the feed is oldest first (catch-up reads it forward)', { malformed: true });
  const whole = (name: string, max: number): number | undefined => {
    const text = query.get(name);
    if (text === null) return undefined;
    const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isSafeInteger(value) || value < 1 || value > max) throw SandboxError.validation(name, `must be a whole number from 1${max === Infinity ? '' : ` to ${max}`}`, { malformed: true });
    return value;
  };
  const text = (name: string): string | undefined => query.get(name) ?? undefined;
  const types = text('types');
  const criteria: Omit<EventFeedQuery, 'business_id'> = {};
  if (types !== undefined) criteria.types = types.split(',').map((type) => type.trim()) as EventPattern[];
  for (const name of ['created_after', 'created_before', 'cursor'] as const) {
    const value = text(name);
    if (value !== undefined) criteria[name] = value;
  }
  const page = whole('page', Infinity);
  const perPage = whole('per_page', MAX_PER_PAGE);
  if (page !== undefined) criteria.page = page;
  if (perPage !== undefined) criteria.limit = perPage;
  return criteria;
}

/** The feed's refusals in the API's envelope: a bad criterion, and a time older than the retention. */
async function answered<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof DispatcherError && (error.code === 'VALIDATION_ERROR' || error.code === 'EVENTS_EXPIRED')) {
      const field = typeof error.details.field === 'string' ? error.details.field : '';
      const reason = error.message.startsWith(`${field} `) ? error.message.slice(field.length + 1) : error.message;
      const refused = SandboxError.validation(field, reason);
      return Promise.reject(error.code === 'EVENTS_EXPIRED' ? new SandboxError('VALIDATION_ERROR', refused.message, { field, reason, expired: true, retention_ms: error.details.retention_ms as number }, 422) : refused);
    }
    throw error;
  }
}
