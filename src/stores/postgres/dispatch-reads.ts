import { mergeBucketCounts, type BucketCount } from '../../ports/buckets.js';
import type { AttemptStats, DispatchReads, LatestAnswer } from '../../ports/dispatch-reads.js';
import type { DeliveryStatus } from '../../ports/dispatch-statuses.js';
import { int8, readInt8 } from './int8.js';
import type { PostgresQueryable } from './pool.js';
import { run, type Prepare, type Statement } from './statement.js';

/** The sending side's reads on a dispatcher's PostgreSQL schema. */
export function postgresDispatchReads(pool: PostgresQueryable, schema: string, { ready, prepare }: { ready: () => Promise<void>; prepare: Prepare }): DispatchReads {
  // Every read walks a time index over the range: (created_at, status) for deliveries, (attempted_at) for attempts.
  const attempts = `${schema}.dispatch_attempts`;
  const inRange = `attempted_at >= $1 AND attempted_at < $2 AND ($3::text IS NULL OR webhook_id = $3)`;
  const sql = {
    // Every registration's from the index alone (once vacuumed); one registration's reads its rows in the range.
    deliveries: prepare(`SELECT ((created_at - $1) / $3)::int AS bucket, status AS outcome, COUNT(*)::int AS count
      FROM ${schema}.dispatch_deliveries WHERE created_at >= $1 AND created_at < $2 GROUP BY 1, 2`),
    deliveriesOfWebhook: prepare(`SELECT ((created_at - $1) / $3)::int AS bucket, status AS outcome, COUNT(*)::int AS count
      FROM ${schema}.dispatch_deliveries WHERE created_at >= $1 AND created_at < $2 AND webhook_id = $4 GROUP BY 1, 2`),
    attempts: prepare(`SELECT webhook_id, ((attempted_at - $1) / $4)::int AS bucket, COUNT(*)::int AS attempts, COUNT(*) FILTER (WHERE error_kind IS NULL)::int AS delivered
      FROM ${attempts} WHERE ${inRange} GROUP BY 1, 2 ORDER BY 1, 2`),
    // Nearest rank, as on SQLite: percentile_disc is the value at rank ceil(p × n).
    percentiles: prepare(`SELECT webhook_id, percentile_disc(0.5) WITHIN GROUP (ORDER BY response_time_ms)::int AS p50,
        percentile_disc(0.95) WITHIN GROUP (ORDER BY response_time_ms)::int AS p95
      FROM ${attempts} WHERE ${inRange} GROUP BY webhook_id`),
    // Each delivery's attempts on the (delivery_id, attempt_number) index, the greatest seq.
    latest: prepare(`SELECT a.delivery_id, a.response_status, a.error_kind FROM unnest($1::text[]) AS given (id)
      JOIN LATERAL (SELECT delivery_id, response_status, error_kind FROM ${attempts} WHERE delivery_id = given.id ORDER BY seq DESC LIMIT 1) AS a ON true`),
    lastDelivered: prepare(`SELECT delivery_id, attempted_at FROM ${attempts}
      WHERE attempted_at >= $1 AND attempted_at < $2 AND webhook_id = $3 AND error_kind IS NULL ORDER BY attempted_at DESC LIMIT 1`),
    lastFailed: prepare(`SELECT delivery_id, attempted_at FROM ${attempts}
      WHERE attempted_at >= $1 AND attempted_at < $2 AND webhook_id = $3 AND error_kind IS NOT NULL ORDER BY attempted_at DESC LIMIT 1`),
  };
  const query = async <Row>(statement: Statement, values: unknown[]): Promise<Row[]> => {
    await ready();
    return (await run(pool, statement, values)).rows as Row[];
  };
  const lastOf = async (statement: Statement, values: unknown[]) => {
    const [row] = await query<{ delivery_id: string; attempted_at: unknown }>(statement, values);
    return row ? { delivery_id: row.delivery_id, attempted_at: readInt8(row.attempted_at, 'attempted_at') } : null;
  };
  return {
    async deliveryBuckets({ from, to, size, webhook_id }) {
      const range = [int8(from, 'from'), int8(to, 'to'), int8(size, 'size')];
      const rows = webhook_id === undefined ? query<BucketCount<DeliveryStatus>>(sql.deliveries, range) : query<BucketCount<DeliveryStatus>>(sql.deliveriesOfWebhook, [...range, webhook_id]);
      return mergeBucketCounts(await rows);
    },
    async latestAnswers(deliveryIds) {
      return deliveryIds.length === 0 ? [] : await query<LatestAnswer>(sql.latest, [deliveryIds]);
    },
    async attemptStats({ from, to, size, webhook_id }) {
      const range = [int8(from, 'from'), int8(to, 'to'), webhook_id ?? null];
      const [rows, times] = await Promise.all([
        query<{ webhook_id: string; bucket: number; attempts: number; delivered: number }>(sql.attempts, [...range, int8(size, 'size')]),
        query<{ webhook_id: string; p50: number; p95: number }>(sql.percentiles, range),
      ]);
      const percentiles = new Map(times.map((row) => [row.webhook_id, row]));
      const stats = new Map<string, AttemptStats>();
      for (const row of rows) {
        let entry = stats.get(row.webhook_id);
        if (!entry) {
          entry = { webhook_id: row.webhook_id, buckets: [], p50_ms: percentiles.get(row.webhook_id)?.p50 ?? 0, p95_ms: percentiles.get(row.webhook_id)?.p95 ?? 0, last_delivered: null, last_failed: null };
          stats.set(row.webhook_id, entry);
        }
        entry.buckets.push({ bucket: row.bucket, attempts: row.attempts, delivered: row.delivered });
      }
      await Promise.all(
        [...stats.values()].map(async (entry) => {
          const one = [int8(from, 'from'), int8(to, 'to'), entry.webhook_id];
          [entry.last_delivered, entry.last_failed] = await Promise.all([lastOf(sql.lastDelivered, one), lastOf(sql.lastFailed, one)]);
        }),
      );
      return [...stats.values()];
    },
  };
}
