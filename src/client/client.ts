import type { WebhookEvent } from '../events/schemas.js';
import { resolveLogger } from '../logging/logger.js';
import { parseClientOptions, type ClientOptions } from './options.js';
import type { RateLimit } from './rate-limit.js';
import type {
  ApiMe,
  ApiWebhook,
  ApiWebhookWithSecret,
  CreateApiWebhookInput,
  EventListParams,
  EventPage,
  TimeInput,
  UpdateApiWebhookInput,
} from './records.js';
import { Transport, type RequestOptions } from './transport.js';

/** The per_page `iterate` asks for unless told: the document's maximum. */
export const ITERATE_PER_PAGE = 100;

/** The webhook management table of the platform's document. */
export interface ClientWebhooks {
  /** `GET /v1/webhooks`: every registration of the account (all pages). */
  list(options?: RequestOptions): Promise<ApiWebhook[]>;
  /** `POST /v1/webhooks {url, events}`: the new registration with its secret. Not retried after no answer. */
  create(input: CreateApiWebhookInput, options?: RequestOptions): Promise<ApiWebhookWithSecret>;
  /** `PATCH /v1/webhooks/{id}`: the registration as changed. */
  update(id: string, input: UpdateApiWebhookInput, options?: RequestOptions): Promise<ApiWebhook>;
  /** `DELETE /v1/webhooks/{id}`. */
  delete(id: string, options?: RequestOptions): Promise<void>;
  /** `POST /v1/webhooks/{id}/rotate-secret`: the registration with its new secret. Not retried after no answer. */
  rotateSecret(id: string, options?: RequestOptions): Promise<ApiWebhookWithSecret>;
}

/** The events feed: every event of the account, oldest first, for the platform's retention. */
export interface ClientEvents {
  /** `GET /v1/events`: one page. */
  list(params?: EventListParams, options?: RequestOptions): Promise<EventPage>;
  /** `GET /v1/events/{id}`: one event. */
  get(id: string, options?: RequestOptions): Promise<WebhookEvent>;
  /**
   * Every event the filter selects, oldest first, page after page by cursor until the feed has
   * no more (events that arrive while it runs included).
   * @example
   * for await (const event of client.events.iterate({ created_after: '2026-11-20T00:00:00Z' })) console.log(event.id);
   */
  iterate(params?: Omit<EventListParams, 'page'>, options?: RequestOptions): AsyncGenerator<WebhookEvent, void, undefined>;
}

/** A typed client of the platform's `/v1` API, made by {@link createClient}. */
export interface Client {
  readonly webhooks: ClientWebhooks;
  readonly events: ClientEvents;
  /** `GET /v1/me`: the user and account the key belongs to. */
  me(options?: RequestOptions): Promise<ApiMe>;
  /** The X-RateLimit-* headers of the latest answer that carried them; `null` before the first. */
  readonly rateLimit: RateLimit | null;
  /** The API root in use (ends before `/v1`). */
  readonly baseUrl: string;
}

/**
 * A client of the platform's `/v1` API, on the Fetch API alone (Node.js, Bun, Deno, Workers).
 * Error envelopes become typed errors ({@link ApiError} and its subclasses); a 429 is retried
 * after its Retry-After with exponential backoff and jitter; idempotent calls are retried after no
 * answer or a 5xx. The key is sent only as `Authorization: Bearer …`: never logged, never in an error.
 *
 * @throws ConfigurationError for an unusable option, here (the key's value is never in it)
 * @example
 * const client = createClient({ apiKey: process.env.ACCT_API_KEY!, baseUrl: 'https://api.example.com' });
 * const webhook = await client.webhooks.create({ url: 'https://example.com/webhooks', events: ['invoice.*'] });
 * for await (const event of client.events.iterate({ created_after: new Date(Date.now() - 72 * 3_600_000) })) console.log(event.type);
 */
export function createClient(options: ClientOptions): Client {
  const { apiKey, logger, ...valid } = parseClientOptions(options);
  const transport = new Transport(valid, apiKey, resolveLogger(logger, 'client'));
  const call = <T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, extra: { query?: URLSearchParams; body?: unknown; options?: RequestOptions | undefined } = {}) =>
    transport.call({ method, path, query: extra.query, body: extra.body, signal: extra.options?.signal }) as Promise<T>;
  const data = async <T>(answer: Promise<{ data: T } | undefined>): Promise<T> => (await answer)!.data;
  const id = (value: string) => `/${encodeURIComponent(value)}`;

  const webhooks: ClientWebhooks = {
    list: async (requestOptions) => {
      const all: ApiWebhook[] = [];
      for (let page = 1; ; page += 1) {
        const answer = await call<{ data: ApiWebhook[]; pagination?: { total_pages?: number } }>('GET', '/webhooks', {
          query: new URLSearchParams({ page: String(page), per_page: '100' }),
          options: requestOptions,
        });
        all.push(...answer.data);
        if (answer.pagination?.total_pages === undefined || page >= answer.pagination.total_pages) return all;
      }
    },
    create: (input, requestOptions) => data(call('POST', '/webhooks', { body: { url: input.url, events: input.events }, options: requestOptions })),
    update: (webhookId, input, requestOptions) => data(call('PATCH', `/webhooks${id(webhookId)}`, { body: input, options: requestOptions })),
    delete: async (webhookId, requestOptions) => {
      await call('DELETE', `/webhooks${id(webhookId)}`, { options: requestOptions });
    },
    rotateSecret: (webhookId, requestOptions) => data(call('POST', `/webhooks${id(webhookId)}/rotate-secret`, { options: requestOptions })),
  };

  const events: ClientEvents = {
    list: (params = {}, requestOptions) => call<EventPage>('GET', '/events', { query: eventQuery(params), options: requestOptions }),
    get: (eventId, requestOptions) => data(call('GET', `/events${id(eventId)}`, { options: requestOptions })),
    iterate: async function* (params = {}, requestOptions) {
      let cursor = params.cursor;
      const perPage = params.per_page ?? ITERATE_PER_PAGE;
      for (;;) {
        const page = await events.list({ ...params, per_page: perPage, ...(cursor === undefined ? {} : { cursor }) }, requestOptions);
        yield* page.data;
        if (!page.pagination.has_more || page.data.length === 0) return;
        cursor = page.pagination.next_cursor;
      }
    },
  };

  return {
    webhooks,
    events,
    me: (requestOptions) => data(call('GET', '/me', { options: requestOptions })),
    get rateLimit() {
      return transport.rateLimit;
    },
    baseUrl: valid.baseUrl,
  };
}

function eventQuery(params: EventListParams): URLSearchParams {
  const query = new URLSearchParams();
  if (params.types !== undefined) query.set('types', (typeof params.types === 'string' ? [params.types] : params.types).join(','));
  if (params.created_after !== undefined) query.set('created_after', isoTime(params.created_after));
  if (params.created_before !== undefined) query.set('created_before', isoTime(params.created_before));
  if (params.per_page !== undefined) query.set('per_page', String(params.per_page));
  if (params.page !== undefined) query.set('page', String(params.page));
  if (params.cursor !== undefined) query.set('cursor', params.cursor);
  return query;
}

function isoTime(input: TimeInput): string {
  const ms = input instanceof Date ? input.getTime() : typeof input === 'number' ? input : Date.parse(input);
  // An unreadable time goes as given: the API answers VALIDATION_ERROR naming the field.
  return Number.isFinite(ms) ? new Date(ms).toISOString() : String(input);
}
