import { mergeBucketCounts, type BucketCount } from '../ports/buckets.js';
import type { DispatchReads } from '../ports/dispatch-reads.js';
import type { DeliveryStatus } from '../ports/dispatch-statuses.js';
import { asPromise } from './as-promise.js';
import type { SqliteConnection } from './driver.js';

/** The sending side's reads on a dispatcher's SQLite file. */
export function sqliteDispatchReads(db: SqliteConnection): DispatchReads {
  // The range walks the (created_at) index; the driver may bind numbers as REAL, hence the cast
  // (times are after `from`: truncation is floor).
  const buckets = db.prepare<Record<string, unknown>, BucketCount<DeliveryStatus>>(`SELECT CAST((created_at - @from) / @size AS INTEGER) AS bucket, status AS outcome, COUNT(*) AS count
    FROM dispatch_deliveries WHERE created_at >= @from AND created_at < @to AND (@webhook_id IS NULL OR webhook_id = @webhook_id) GROUP BY 1, 2`);
  return {
    deliveryBuckets: ({ from, to, size, webhook_id }) => asPromise(() => mergeBucketCounts(buckets.all({ from, to, size, webhook_id: webhook_id ?? null }))),
  };
}
