import { mergeBucketCounts, type BucketCount } from '../ports/buckets.js';
import type { DispatchReads } from '../ports/dispatch-reads.js';
import type { DeliveryStatus } from '../ports/dispatch-statuses.js';
import { int8 } from './int8.js';
import type { PostgresQueryable } from './pool.js';
import { run, type Prepare } from './statement.js';

/** The sending side's reads on a dispatcher's PostgreSQL schema. */
export function postgresDispatchReads(pool: PostgresQueryable, schema: string, { ready, prepare }: { ready: () => Promise<void>; prepare: Prepare }): DispatchReads {
  // The range walks the (created_at) index.
  const buckets = prepare(`SELECT ((created_at - $1) / $3)::int AS bucket, status AS outcome, COUNT(*)::int AS count
    FROM ${schema}.dispatch_deliveries WHERE created_at >= $1 AND created_at < $2 AND ($4::text IS NULL OR webhook_id = $4) GROUP BY 1, 2`);
  return {
    async deliveryBuckets({ from, to, size, webhook_id }) {
      await ready();
      const { rows } = await run(pool, buckets, [int8(from, 'from'), int8(to, 'to'), int8(size, 'size'), webhook_id ?? null]);
      return mergeBucketCounts(rows as BucketCount<DeliveryStatus>[]);
    },
  };
}
