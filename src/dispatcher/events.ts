import { expandEventPattern, isEventPattern, type EventPattern, type EventType } from '../events/catalog.js';
import { parseEvent } from '../events/parse.js';
import type { WebhookEvent } from '../events/schemas.js';
import type { DispatchStore } from '../ports/dispatch-store.js';
import type { FeedCountQuery } from '../ports/event-feed.js';
import type { TimeInput as EventTime } from './delivery-filters.js';
import { DispatcherError, NotFoundError } from './errors.js';

/** How many events `events.list` returns unless told. */
export const DEFAULT_EVENT_PAGE_SIZE = 20;
/** The most events one `events.list` returns. */
export const MAX_EVENT_PAGE_SIZE = 100;


/** Which events of one business `events.list` returns; every criterion given must hold. */
export interface EventFeedQuery {
  business_id: string;
  /** Event types, groups (`invoice.*`) or `*`. @default every type */
  types?: EventPattern | readonly EventPattern[];
  /** Created at or after. Not before the delivery log's retention. */
  created_after?: EventTime;
  /** Created before. */
  created_before?: EventTime;
  /** At most this many, 1 to 100. @default DEFAULT_EVENT_PAGE_SIZE (20) */
  limit?: number;
  /** The `next_cursor` of a list before: the events after it, also those recorded since. */
  cursor?: string;
  /** A page number counted from the first event the filter selects, `limit` to a page. Not with `cursor`. @default 1 */
  page?: number;
}

/** The criteria of {@link EventFeedQuery} without a page, for `events.count`. */
export type EventFeedCountQuery = Omit<EventFeedQuery, 'limit' | 'cursor' | 'page'>;

/** One page of the feed, oldest first. */
export interface EventFeedPage {
  data: WebhookEvent[];
  /** Where the next page starts: always given, also when nothing more is there yet (keep it to ask again later). */
  next_cursor: string;
  /** Whether more events were there when this page was read. */
  has_more: boolean;
}

interface Cursor {
  /** The position after which the next page starts. */
  seq: number;
  /** When the cursor was given: a cursor older than the retention may have lost events after it. */
  at: number;
}

/**
 * The events feed: every event the dispatcher stored, per business, for the delivery log's
 * retention, in the order the store recorded them (oldest first). Read by index per business.
 */
export class EventFeed {
  constructor(
    private readonly options: { store: () => Promise<DispatchStore>; clock: () => number; retentionMs: number },
  ) {}

  /**
   * One page of a business's events, oldest first. Paging by `next_cursor` skips and repeats
   * nothing while events keep arriving.
   * @throws DispatcherError `VALIDATION_ERROR` (a bad criterion, `details.field`), `EVENTS_EXPIRED`
   *   (a `created_after` or a cursor older than the retention), `EVENTS_UNSUPPORTED`
   * @example
   * const { data, next_cursor } = await dispatcher.events.list({ business_id: 'biz_4mVt9QeZxK2hRw7L', types: ['invoice.*'], limit: 100 });
   */
  async list(query: EventFeedQuery): Promise<EventFeedPage> {
    const store = await this.feedStore();
    const now = this.options.clock();
    const criteria = this.criteria(query, now);
    const limit = query.limit === undefined ? DEFAULT_EVENT_PAGE_SIZE : checkLimit(query.limit);
    if (query.cursor !== undefined && query.page !== undefined) throw invalid('page', 'goes without cursor: a cursor is a position of its own');
    const cursor = query.cursor === undefined ? undefined : readCursor(query.cursor);
    if (cursor !== undefined && cursor.at < now - this.options.retentionMs) throw expired('cursor', this.options.retentionMs);
    const page = query.page === undefined ? 1 : checkPage(query.page);
    const rows = await store.listEvents!({
      ...criteria,
      ...(cursor === undefined ? {} : { after_seq: cursor.seq }),
      ...(page > 1 ? { offset: (page - 1) * limit } : {}),
      limit: limit + 1,
    });
    const shown = rows.slice(0, limit);
    const last = shown.at(-1);
    const next: Cursor = { seq: last?.seq ?? cursor?.seq ?? 0, at: now };
    return { data: shown.map((row) => parseEvent(row.payload)), next_cursor: writeCursor(next), has_more: rows.length > limit };
  }

  /**
   * How many of a business's events the criteria select now.
   * @throws DispatcherError as `list`
   */
  async count(query: EventFeedCountQuery): Promise<number> {
    const store = await this.feedStore();
    return store.countEvents!(this.criteria(query, this.options.clock()));
  }

  /**
   * One event by id, as it was sent.
   * @throws NotFoundError (`NOT_FOUND`, also for an event no longer kept); DispatcherError `EVENTS_UNSUPPORTED`
   */
  async get(id: string): Promise<WebhookEvent> {
    const store = await this.feedStore();
    const row = await store.getEvent!(id);
    if (!row) throw new NotFoundError('event', id);
    return parseEvent(row.payload);
  }

  private criteria(query: EventFeedCountQuery, now: number): FeedCountQuery {
    if (typeof query !== 'object' || query === null || typeof query.business_id !== 'string' || query.business_id === '') throw invalid('business_id', 'must be the business whose events to list');
    const types = query.types === undefined ? undefined : expandTypes(query.types);
    const after = query.created_after === undefined ? undefined : readTime('created_after', query.created_after);
    const before = query.created_before === undefined ? undefined : readTime('created_before', query.created_before);
    if (after !== undefined && after < now - this.options.retentionMs) throw expired('created_after', this.options.retentionMs);
    return {
      business_id: query.business_id,
      ...(types === undefined ? {} : { types }),
      ...(after === undefined ? {} : { created_after: after }),
      ...(before === undefined ? {} : { created_before: before }),
    };
  }

  private async feedStore(): Promise<DispatchStore> {
    const store = await this.options.store();
    if (!store.listEvents || !store.countEvents || !store.getEvent) {
      throw new DispatcherError('EVENTS_UNSUPPORTED', 'The store offers no events feed (listEvents, countEvents, getEvent)', {});
    }
    return store;
  }
}

function expandTypes(types: EventPattern | readonly EventPattern[]): EventType[] {
  const patterns: readonly unknown[] = typeof types === 'string' ? [types] : Array.isArray(types) ? types : [types];
  if (patterns.length === 0) throw invalid('types', 'must name at least one event type, group or *');
  const expanded = new Set<EventType>();
  for (const pattern of patterns) {
    if (!isEventPattern(pattern)) throw invalid('types', `"${String(pattern)}" is not an event type such as invoice.paid, a group such as invoice.* or *`);
    for (const type of expandEventPattern(pattern)) expanded.add(type);
  }
  return [...expanded];
}

function readTime(field: string, input: EventTime): number {
  const ms = input instanceof Date ? input.getTime() : typeof input === 'number' ? input : typeof input === 'string' ? Date.parse(input) : Number.NaN;
  if (!Number.isFinite(ms)) throw invalid(field, 'must be a time: an ISO 8601 date-time, a Date or milliseconds');
  return Math.trunc(ms);
}

function checkLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_EVENT_PAGE_SIZE) throw invalid('limit', `must be a whole number from 1 to ${MAX_EVENT_PAGE_SIZE}`);
  return limit;
}

function checkPage(page: number): number {
  if (!Number.isSafeInteger(page) || page < 1) throw invalid('page', 'must be a whole number from 1');
  return page;
}

function writeCursor(cursor: Cursor): string {
  return `ec1_${Buffer.from(`${cursor.seq}.${cursor.at}`).toString('base64url')}`;
}

function readCursor(text: string): Cursor {
  const match = typeof text === 'string' && text.startsWith('ec1_') ? /^(\d+)\.(\d+)$/.exec(Buffer.from(text.slice(4), 'base64url').toString()) : null;
  if (!match) throw invalid('cursor', 'is not a cursor this feed gave: pass a next_cursor as it was answered');
  return { seq: Number(match[1]), at: Number(match[2]) };
}

function invalid(field: string, message: string): DispatcherError {
  return new DispatcherError('VALIDATION_ERROR', `${field} ${message}`, { field });
}

function expired(field: string, retentionMs: number): DispatcherError {
  const days = Math.round((retentionMs / 86_400_000) * 10) / 10;
  return new DispatcherError(
    'EVENTS_EXPIRED',
    `${field} reaches back further than the events are kept (${days} days, the delivery log's retention): ask from a later time`,
    { field, retention_ms: retentionMs },
  );
}
