import { isEventType, type EventType } from '../events/catalog.js';
import type { AttemptRunner } from './attempt-runner.js';
import { DispatcherError, NotFoundError } from './errors.js';
import { writeJsonLines } from './export.js';
import type { SlidingWindowLimiter } from './rate-limit.js';
import type { Delivery, DeliveryAttempt, DeliveryDetail, DeliveryStatus, ExportedAttempt } from './records.js';
import type { AttemptQuery, DispatchStorage, StorageAccess } from './storage.js';
import { toAttempt, toDelivery } from './views.js';

/** A point in time: a Date, an ISO 8601 string or milliseconds since the epoch. */
export type TimeInput = Date | string | number;

export interface DeliveryFilter {
  status?: DeliveryStatus;
  type?: EventType;
  webhookId?: string;
  /** For `list`: deliveries created at or after; for `export`: attempts made at or after. */
  since?: TimeInput;
  /** For `list`: deliveries created before; for `export`: attempts made before. */
  until?: TimeInput;
}

export interface DeliveryListOptions extends DeliveryFilter {
  /** @default 100, at most 1000 */
  limit?: number;
  /** @default 0 */
  offset?: number;
}

export interface ManualRetryResult {
  delivery: Delivery;
  attempt: DeliveryAttempt;
}

export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;
const EXPORT_PAGE_SIZE = 500;
const STATUSES: readonly DeliveryStatus[] = ['delivered', 'retrying', 'finally_failed'];

export interface DeliveriesOptions {
  storage: StorageAccess;
  runner: AttemptRunner;
  limiter: SlidingWindowLimiter;
  /** Wraps an attempt so that stop() and close() wait for it. */
  track: <T>(work: Promise<T>) => Promise<T>;
}

/** `dispatcher.deliveries`: the delivery log and the operations on it. */
export class Deliveries {
  constructor(private readonly options: DeliveriesOptions) {}

  /**
   * Deliveries, newest first.
   * @example
   * const failed = await dispatcher.deliveries.list({ status: 'finally_failed', since: '2026-11-01' });
   */
  async list(filter: DeliveryListOptions = {}): Promise<Delivery[]> {
    const query = checkFilter(filter);
    const limit = whole('limit', filter.limit ?? DEFAULT_LIST_LIMIT, 1, MAX_LIST_LIMIT);
    const offset = whole('offset', filter.offset ?? 0, 0, Number.MAX_SAFE_INTEGER);
    const storage = await this.options.storage();
    return (await storage.listDeliveries({ ...query, limit, offset })).map(toDelivery);
  }

  /** One delivery with all its attempts, oldest first. @throws NotFoundError */
  async get(id: string): Promise<DeliveryDetail> {
    const storage = await this.options.storage();
    const delivery = await storage.getDelivery(id);
    if (!delivery) throw new NotFoundError('delivery', id);
    const attempts = await storage.listAttempts(id);
    return { ...toDelivery(delivery), attempts: attempts.map(toAttempt) };
  }

  /**
   * A manual attempt now, in any state. Success marks the delivery `delivered`; a failure leaves
   * its schedule as it was. At most 50 per 15 minutes per dispatcher (`manualRetryLimit`).
   * @throws NotFoundError, RateLimitError (`RATE_LIMIT_EXCEEDED`, `details.retry_after`)
   */
  async retry(id: string): Promise<ManualRetryResult> {
    const storage = await this.options.storage();
    const job = await storage.loadJob(id);
    if (!job) throw new NotFoundError('delivery', id);
    this.options.limiter.take();
    const recorded = await this.options.track(this.options.runner.run(job, { manual: true }));
    return { delivery: toDelivery(recorded.delivery), attempt: toAttempt(recorded.attempt) };
  }

  /**
   * Writes the delivery log as JSON Lines: one attempt per line, oldest first, with every field
   * of {@link DeliveryAttempt} plus `delivery_status`. The stream is not ended. Returns the
   * number of lines.
   *
   * @example
   * const out = fs.createWriteStream('deliveries.jsonl');
   * await dispatcher.deliveries.export(out, { status: 'finally_failed' });
   * out.end();
   */
  async export(stream: NodeJS.WritableStream, filter: DeliveryFilter = {}): Promise<number> {
    const query = checkFilter(filter);
    const storage = await this.options.storage();
    return writeJsonLines(stream, pages(storage.exportAttempts.bind(storage), query));
  }
}

async function* pages(
  read: DispatchStorage['exportAttempts'],
  query: AttemptQuery,
): AsyncGenerator<ExportedAttempt> {
  let cursor = 0;
  for (;;) {
    const rows = await read(query, cursor, EXPORT_PAGE_SIZE);
    for (const row of rows) yield { ...toAttempt(row.attempt), delivery_status: row.delivery_status };
    const last = rows.at(-1);
    if (rows.length < EXPORT_PAGE_SIZE || last === undefined) return;
    cursor = last.cursor;
  }
}

function checkFilter(filter: DeliveryFilter): AttemptQuery {
  if (typeof filter !== 'object' || filter === null) throw invalidFilter('', 'must be an object');
  const query: AttemptQuery = {};
  if (filter.status !== undefined) {
    if (!STATUSES.includes(filter.status)) throw invalidFilter('status', `must be one of ${STATUSES.join(', ')}`);
    query.status = filter.status;
  }
  if (filter.type !== undefined) {
    if (!isEventType(filter.type)) throw new DispatcherError('UNKNOWN_EVENT_TYPE', `Unknown event type "${String(filter.type)}"`, { field: 'type', value: filter.type });
    query.type = filter.type;
  }
  if (filter.webhookId !== undefined) {
    if (typeof filter.webhookId !== 'string') throw invalidFilter('webhookId', 'must be a string');
    query.webhookId = filter.webhookId;
  }
  if (filter.since !== undefined) query.since = toMs('since', filter.since);
  if (filter.until !== undefined) query.until = toMs('until', filter.until);
  return query;
}

function toMs(field: string, value: TimeInput): number {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms)) throw invalidFilter(field, 'must be a Date, an ISO 8601 string or ms since the epoch');
  return ms;
}

function whole(field: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidFilter(field, `must be an integer from ${min} to ${max}`);
  }
  return value;
}

function invalidFilter(field: string, reason: string): DispatcherError {
  return new DispatcherError('VALIDATION_ERROR', `Filter ${field}: ${reason}`, { field, reason });
}
