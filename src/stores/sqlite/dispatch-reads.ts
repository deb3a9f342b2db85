import { mergeBucketCounts, type BucketCount } from '../../ports/buckets.js';
import type { AttemptRef, AttemptStats, DispatchReads, LatestAnswer } from '../../ports/dispatch-reads.js';
import type { DeliveryStatus } from '../../ports/dispatch-statuses.js';
import { asPromise } from './as-promise.js';
import type { SqliteConnection } from './drivers.js';

// Every read walks a time index over the range: (created_at, status) for deliveries, (attempted_at)
// for attempts. The driver may bind numbers as REAL, hence the casts (times are after `from`:
// truncation is floor).
const IN_RANGE = `attempted_at >= @from AND attempted_at < @to AND (@webhook_id IS NULL OR webhook_id = @webhook_id)`;

/** The sending side's reads on a dispatcher's SQLite file. */
export function sqliteDispatchReads(db: SqliteConnection): DispatchReads {
  const sql = {
    // Every registration's from the index alone; one registration's reads its rows in the range.
    deliveries: db.prepare<Record<string, unknown>, BucketCount<DeliveryStatus>>(`SELECT CAST((created_at - @from) / @size AS INTEGER) AS bucket, status AS outcome, COUNT(*) AS count
      FROM dispatch_deliveries WHERE created_at >= @from AND created_at < @to GROUP BY 1, 2`),
    deliveriesOfWebhook: db.prepare<Record<string, unknown>, BucketCount<DeliveryStatus>>(`SELECT CAST((created_at - @from) / @size AS INTEGER) AS bucket, status AS outcome, COUNT(*) AS count
      FROM dispatch_deliveries WHERE created_at >= @from AND created_at < @to AND webhook_id = @webhook_id GROUP BY 1, 2`),
    attempts: db.prepare<Record<string, unknown>, { webhook_id: string; bucket: number; attempts: number; delivered: number }>(`SELECT webhook_id,
        CAST((attempted_at - @from) / @size AS INTEGER) AS bucket, COUNT(*) AS attempts, SUM(CASE WHEN error_kind IS NULL THEN 1 ELSE 0 END) AS delivered
      FROM dispatch_attempts WHERE ${IN_RANGE} GROUP BY 1, 2 ORDER BY 1, 2`),
    // Nearest rank: the value at rank ceil(p × n).
    percentiles: db.prepare<Record<string, unknown>, { webhook_id: string; p50: number; p95: number }>(`SELECT webhook_id,
        MIN(CASE WHEN rank = (n * 50 + 99) / 100 THEN response_time_ms END) AS p50, MIN(CASE WHEN rank = (n * 95 + 99) / 100 THEN response_time_ms END) AS p95
      FROM (SELECT webhook_id, response_time_ms, ROW_NUMBER() OVER (PARTITION BY webhook_id ORDER BY response_time_ms) AS rank, COUNT(*) OVER (PARTITION BY webhook_id) AS n
        FROM dispatch_attempts WHERE ${IN_RANGE})
      WHERE rank IN ((n * 50 + 99) / 100, (n * 95 + 99) / 100) GROUP BY webhook_id`),
    // Each delivery's greatest seq on the (delivery_id, seq) index, then that attempt by its key.
    latest: db.prepare<[string], LatestAnswer>(`SELECT a.delivery_id, a.response_status, a.error_kind FROM json_each(?) AS given
      JOIN dispatch_attempts a ON a.seq = (SELECT MAX(seq) FROM dispatch_attempts WHERE delivery_id = given.value)`),
    lastDelivered: db.prepare<Record<string, unknown>, AttemptRef>(`SELECT delivery_id, attempted_at FROM dispatch_attempts
      WHERE attempted_at >= @from AND attempted_at < @to AND webhook_id = @webhook_id AND error_kind IS NULL ORDER BY attempted_at DESC LIMIT 1`),
    lastFailed: db.prepare<Record<string, unknown>, AttemptRef>(`SELECT delivery_id, attempted_at FROM dispatch_attempts
      WHERE attempted_at >= @from AND attempted_at < @to AND webhook_id = @webhook_id AND error_kind IS NOT NULL ORDER BY attempted_at DESC LIMIT 1`),
  };
  return {
    deliveryBuckets: ({ from, to, size, webhook_id }) =>
      asPromise(() => mergeBucketCounts(webhook_id === undefined ? sql.deliveries.all({ from, to, size }) : sql.deliveriesOfWebhook.all({ from, to, size, webhook_id }))),
    latestAnswers: (deliveryIds) => asPromise(() => (deliveryIds.length === 0 ? [] : sql.latest.all(JSON.stringify(deliveryIds)))),
    attemptStats: ({ from, to, size, webhook_id }) =>
      asPromise(() => {
        const range = { from, to, size, webhook_id: webhook_id ?? null };
        const percentiles = new Map(sql.percentiles.all(range).map((row) => [row.webhook_id, row]));
        const stats = new Map<string, AttemptStats>();
        for (const row of sql.attempts.all(range)) {
          let entry = stats.get(row.webhook_id);
          if (!entry) {
            const times = percentiles.get(row.webhook_id);
            const one = { from, to, webhook_id: row.webhook_id };
            entry = { webhook_id: row.webhook_id, buckets: [], p50_ms: times?.p50 ?? 0, p95_ms: times?.p95 ?? 0, last_delivered: sql.lastDelivered.get(one) ?? null, last_failed: sql.lastFailed.get(one) ?? null };
            stats.set(row.webhook_id, entry);
          }
          entry.buckets.push({ bucket: row.bucket, attempts: row.attempts, delivered: row.delivered });
        }
        return [...stats.values()];
      }),
  };
}
