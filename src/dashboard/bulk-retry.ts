import { MAX_LIST_LIMIT, type DeliveryFilter } from '../dispatcher/delivery-filters.js';
import type { DispatcherCore as Dispatcher } from '../dispatcher/dispatcher.js';
import { RateLimitError } from '../dispatcher/errors.js';

/** What retrying every delivery of a filter did. */
export interface BulkRetryResult {
  /** Deliveries the filter selected when the retry started. */
  matched: number;
  delivered: number;
  failed: number;
  /** Left out because the manual-retry limit was reached; with when it frees up. */
  notRetried: number;
  limit: RateLimitError | undefined;
}

/** Attempts at once: a few, so that one slow receiver does not hold the page for long. */
const CONCURRENCY = 4;

/**
 * Retries the deliveries a filter selects, newest first, until the dispatcher's manual-retry limit
 * (the platform's 50 per 15 minutes) refuses one. The ids are read first: a retried delivery may
 * leave the filter (a `finally_failed` one becomes `delivered`), which would shift later pages.
 */
export async function retryMatching(dispatcher: Dispatcher, filter: DeliveryFilter): Promise<BulkRetryResult> {
  const matched = await dispatcher.deliveries.count(filter);
  // One more than the limit allows: when more match, the limiter's refusal of that one says when it frees up.
  const ids = (await dispatcher.deliveries.list({ ...filter, limit: Math.min(MAX_LIST_LIMIT, dispatcher.settings.manualRetryLimit.max + 1) })).map((delivery) => delivery.id);
  const result: BulkRetryResult = { matched, delivered: 0, failed: 0, notRetried: 0, limit: undefined };
  let next = 0;
  async function worker(): Promise<void> {
    while (next < ids.length && result.limit === undefined) {
      const id = ids[next++]!;
      try {
        const { delivery } = await dispatcher.deliveries.retry(id);
        if (delivery.status === 'delivered') result.delivered++;
        else result.failed++;
      } catch (error) {
        if (!(error instanceof RateLimitError)) throw error;
        result.limit = error;
      }
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  result.notRetried = matched - result.delivered - result.failed;
  return result;
}
