import { payloadRemoved } from '../ports/retention.js';
import type { AttemptRunner } from './attempt-runner.js';
import { attemptQuery, countQuery, deliveryQuery, type DeliveryExportFilter, type DeliveryFilter, type DeliveryListOptions } from './delivery-filters.js';
import { DispatcherError, NotFoundError } from './errors.js';
import { writeJsonLines } from './export.js';
import type { SlidingWindowLimiter } from './rate-limit.js';
import type { Delivery, DeliveryAttempt, DeliveryDetail, ExportedAttempt } from './records.js';
import type { AttemptQuery, DispatchStore, StoreAccess } from '../ports/dispatch-store.js';
import { toAttempt, toDelivery } from './views.js';

/** What a manual retry returns: the delivery after it, and the attempt it made. */
export interface ManualRetryResult {
  delivery: Delivery;
  attempt: DeliveryAttempt;
}

const EXPORT_PAGE_SIZE = 500;

export interface DeliveriesOptions {
  store: StoreAccess;
  runner: AttemptRunner;
  limiter: SlidingWindowLimiter;
  /** Wraps an attempt so that stop() and close() wait for it. */
  track: <T>(work: Promise<T>) => Promise<T>;
}

/** `dispatcher.deliveries`: the delivery log and the operations on it. */
export class Deliveries {
  constructor(private readonly options: DeliveriesOptions) {}

  /**
   * Deliveries, newest first, filtered by the fields of the record: `status`, `event_type` (a
   * type, a group such as `invoice.*`, or `*`), `webhook_id`, `event_id`, `correlation_id`,
   * `created_after` (inclusive) and `created_before` (exclusive), and by the latest attempt's
   * `response_status_class`; times as a Date, an ISO 8601 string or ms.
   * @throws DispatcherError `VALIDATION_ERROR` ({ field, reason }), `UNKNOWN_EVENT_TYPE`
   * @example
   * const failed = await dispatcher.deliveries.list({ status: 'finally_failed', event_type: 'invoice.*', created_after: '2026-11-01' });
   */
  async list(filter: DeliveryListOptions = {}): Promise<Delivery[]> {
    const query = deliveryQuery(filter);
    const store = await this.options.store();
    return (await store.listDeliveries(query)).map(toDelivery);
  }

  /**
   * How many deliveries a filter selects (the criteria of `list`, without a page).
   * @throws DispatcherError `VALIDATION_ERROR` ({ field, reason }), `UNKNOWN_EVENT_TYPE`
   * @example
   * const failing = await dispatcher.deliveries.count({ status: 'retrying', response_status_class: '5xx' });
   */
  async count(filter: DeliveryFilter = {}): Promise<number> {
    const query = countQuery(filter);
    const store = await this.options.store();
    return store.countDeliveries(query);
  }

  /** One delivery with all its attempts, oldest first. @throws NotFoundError */
  async get(id: string): Promise<DeliveryDetail> {
    const store = await this.options.store();
    const delivery = await store.getDelivery(id);
    if (!delivery) throw new NotFoundError('delivery', id);
    const attempts = await store.listAttempts(id);
    return { ...toDelivery(delivery), attempts: attempts.map(toAttempt) };
  }

  /**
   * A manual attempt now, in any state. Success marks the delivery `delivered`; a failure leaves
   * its schedule as it was. At most 50 per 15 minutes per dispatcher (`manualRetryLimit`).
   * @throws NotFoundError, RateLimitError (`RATE_LIMIT_EXCEEDED`, `details.retry_after`),
   *   DispatcherError `PAYLOAD_NOT_KEPT` when its payload was removed (retention, erase)
   */
  async retry(id: string): Promise<ManualRetryResult> {
    const store = await this.options.store();
    const job = await store.loadJob(id);
    if (!job) throw new NotFoundError('delivery', id);
    if (payloadRemoved(job.event.payload)) {
      throw new DispatcherError('PAYLOAD_NOT_KEPT', `Delivery ${id} cannot be sent again: its payload is no longer kept`, { delivery_id: id, event_id: job.event.id });
    }
    this.options.limiter.take();
    const recorded = await this.options.track(this.options.runner.run(job, { manual: true }));
    return { delivery: toDelivery(recorded.delivery), attempt: toAttempt(recorded.attempt) };
  }

  /**
   * Writes the delivery log as JSON Lines: one attempt per line, oldest first, with every field
   * of {@link DeliveryAttempt} plus `delivery_status`. The stream is not ended. Returns the
   * number of lines. Filters as `list` selects deliveries (`created_*` is the delivery's
   * creation), and by the attempt's time: `attempted_after` (inclusive), `attempted_before`
   * (exclusive).
   * @throws DispatcherError `VALIDATION_ERROR` ({ field, reason }), `UNKNOWN_EVENT_TYPE`
   * @example
   * const out = fs.createWriteStream('deliveries.jsonl');
   * await dispatcher.deliveries.export(out, { status: 'finally_failed', attempted_after: '2026-11-01' });
   * out.end();
   */
  async export(stream: NodeJS.WritableStream, filter: DeliveryExportFilter = {}): Promise<number> {
    const query = attemptQuery(filter);
    const store = await this.options.store();
    return writeJsonLines(stream, pages(store.exportAttempts.bind(store), query));
  }
}

async function* pages(
  read: DispatchStore['exportAttempts'],
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
