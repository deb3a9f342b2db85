import { expandEventPattern, isEventPattern, type EventPattern, type EventType } from '../events/catalog.js';
import { newId } from '../kernel/ids.js';
import type { DispatchStore, NewDelivery, StoredWebhook } from '../ports/dispatch-store.js';
import type { FeedCountQuery } from '../ports/event-feed.js';
import { payloadRemoved } from '../ports/retention.js';
import type { TimeInput } from './delivery-filters.js';
import { DispatcherError, NotFoundError } from './errors.js';

/**
 * The most events one `webhooks.replay()` call queues: a range holding more is refused with
 * `REPLAY_TOO_LARGE` (narrow the range, or the types, and call again for the rest).
 * @default 10_000
 */
export const MAX_REPLAY_EVENTS = 10_000;

/** How many events a replay reads from the feed at a time (internal). */
const READ_PAGE = 1000;

/** What `webhooks.replay(id, options)` takes. */
export interface ReplayOptions {
  /** Events created at or after this time (a Date, an ISO 8601 string or ms). Not before the delivery log's retention. */
  from: TimeInput;
  /** Events created before this time. @default now */
  to?: TimeInput;
  /** Only these types, groups (`invoice.*`) or `*`, among those the registration subscribes to. @default every type it subscribes to */
  types?: EventPattern | readonly EventPattern[];
  /**
   * The business whose events to replay: only for a registration of scope `platform` (or one
   * without an owner), which receives every business's events; a registration of one business
   * replays that business's. @default the registration's business
   */
  business_id?: string;
}

/** What `webhooks.replay()` did. */
export interface ReplayResult {
  /** Events of the range that the registration subscribes to and `types` selects. */
  matched: number;
  /** New deliveries queued, marked `replay`, each on the retry schedule from its first attempt. */
  queued: number;
  /** Events not queued because a delivery of theirs to this registration is still pending (a replay's or the first). */
  skipped: number;
  /** Events not queued because their payload is no longer kept (retention, erasure). */
  payload_removed: number;
}

/** A range with more events than {@link MAX_REPLAY_EVENTS}; `details.events` and `details.max` say how many. */
export class ReplayTooLargeError extends DispatcherError {
  constructor(events: number, max: number) {
    super('REPLAY_TOO_LARGE', `The range holds ${events} events, more than the ${max} one replay queues: narrow it (from, to, types) and replay the rest after`, { events, max });
  }
}

/** What a replay needs of the dispatcher. */
export interface ReplayContext {
  store: DispatchStore;
  now: number;
  /** The delivery log's retention (ms): the oldest `from` the feed still holds. */
  retentionMs: number;
  /** The wait before a delivery's first attempt (the schedule's first), ms. */
  firstWaitMs: number;
}

const OPTION_NAMES = ['from', 'to', 'types', 'business_id'];

/**
 * Queues the events of a registration's business in [from, to) once more to that registration,
 * oldest first, as new deliveries marked `replay`.
 */
export async function replayRange(id: string, options: ReplayOptions, context: ReplayContext): Promise<ReplayResult> {
  const given = checkOptions(options);
  const { store, now } = context;
  if (!store.listEvents || !store.countEvents || !store.replayEvents) {
    throw new DispatcherError('REPLAY_UNSUPPORTED', 'The store offers no replay by range (listEvents, countEvents, replayEvents)', {});
  }
  const webhook = await store.getWebhook(id);
  if (!webhook) throw new NotFoundError('webhook', id);
  const criteria: FeedCountQuery = { business_id: businessOf(webhook, given.business_id), types: typesOf(webhook, given.types), ...rangeOf(given, now, context.retentionMs) };
  const result: ReplayResult = { matched: 0, queued: 0, skipped: 0, payload_removed: 0 };
  if (criteria.types!.length === 0) return result;
  const total = await store.countEvents(criteria);
  if (total > MAX_REPLAY_EVENTS) throw new ReplayTooLargeError(total, MAX_REPLAY_EVENTS);
  const deliveries: (NewDelivery & { event_id: string })[] = [];
  const due = now + context.firstWaitMs;
  let after = 0;
  for (;;) {
    const rows = await store.listEvents({ ...criteria, after_seq: after, limit: READ_PAGE });
    for (const row of rows) {
      // sendTest's samples are not the business's events.
      if (row.test) continue;
      result.matched++;
      if (result.matched > MAX_REPLAY_EVENTS) throw new ReplayTooLargeError(result.matched, MAX_REPLAY_EVENTS);
      if (payloadRemoved(row.payload)) result.payload_removed++;
      else deliveries.push({ id: newId('dlv'), webhook_id: id, event_id: row.id, next_attempt_at: due });
    }
    const last = rows.at(-1);
    if (rows.length < READ_PAGE || last === undefined) break;
    after = last.seq;
  }
  result.queued = deliveries.length === 0 ? 0 : await store.replayEvents(id, deliveries, now);
  result.skipped = deliveries.length - result.queued;
  return result;
}

function checkOptions(options: ReplayOptions): ReplayOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw invalid('', 'must be an object with from, and optional to, types and business_id');
  for (const key of Object.keys(options)) if (!OPTION_NAMES.includes(key)) throw invalid(key, 'is not an option of webhooks.replay');
  if (options.from === undefined) throw invalid('from', 'is required: the start of the range');
  return options;
}

function businessOf(webhook: StoredWebhook, given: unknown): string {
  if (given !== undefined && (typeof given !== 'string' || given.trim() === '')) throw invalid('business_id', 'must be a business id');
  if (webhook.business_id !== null) {
    if (given !== undefined && given !== webhook.business_id) throw invalid('business_id', `is not the registration's business (${webhook.business_id}): it receives no other business's events`);
    return webhook.business_id;
  }
  if (given === undefined) throw invalid('business_id', 'is required for a registration that receives every business\'s events: name the business to replay');
  return given;
}

/** The registration's subscribed types, narrowed to `types` when given. */
function typesOf(webhook: StoredWebhook, given: unknown): EventType[] {
  const subscribed = new Set(webhook.events.flatMap(expandEventPattern));
  if (given === undefined) return [...subscribed];
  const patterns: readonly unknown[] = Array.isArray(given) ? given : [given];
  if (patterns.length === 0) throw invalid('types', 'must name at least one event type, group or *');
  const chosen = new Set<EventType>();
  for (const pattern of patterns) {
    if (!isEventPattern(pattern)) throw invalid('types', `"${String(pattern)}" is not an event type such as invoice.paid, a group such as invoice.* or *`);
    for (const type of expandEventPattern(pattern)) if (subscribed.has(type)) chosen.add(type);
  }
  return [...chosen];
}

function rangeOf(given: ReplayOptions, now: number, retentionMs: number): { created_after: number; created_before: number } {
  const from = readTime('from', given.from);
  const to = given.to === undefined ? now : readTime('to', given.to);
  if (from >= to) throw invalid('to', 'must be after from');
  if (from < now - retentionMs) {
    const days = Math.round((retentionMs / 86_400_000) * 10) / 10;
    throw new DispatcherError('EVENTS_EXPIRED', `from reaches back further than the events are kept (${days} days, the delivery log's retention): replay from a later time`, {
      field: 'from',
      retention_ms: retentionMs,
    });
  }
  return { created_after: from, created_before: to };
}

function readTime(field: string, input: unknown): number {
  const ms = input instanceof Date ? input.getTime() : typeof input === 'number' ? input : typeof input === 'string' ? Date.parse(input) : Number.NaN;
  if (!Number.isFinite(ms)) throw invalid(field, 'must be a time: an ISO 8601 date-time, a Date or milliseconds');
  return Math.trunc(ms);
}

function invalid(field: string, message: string): DispatcherError {
  return new DispatcherError('VALIDATION_ERROR', `${field === '' ? 'The options' : field} ${message}`, { field, reason: message });
}
