import { toInboxEvent, type InboxRow } from '../../ports/inbox-rows.js';
import type { QuarantineStore } from '../../ports/idempotency-store.js';
import { mergeBucketCounts, type BucketCount } from '../../ports/buckets.js';
import { isEmpty } from '../../ports/received-queries.js';
import { type InboxCountQuery, type ReceivedOutcome, type ReceivedReads } from '../../ports/received-reads.js';

/** What the memory store's reads look at. */
export interface MemoryReceivedSource {
  inboxRows(): Iterable<InboxRow>;
  /** The direct-mode claims. */
  records(): Iterable<{ state: 'processing' | 'completed'; leaseUntil: number; firstSeenAt: number }>;
  quarantine: QuarantineStore;
}

const matches = (row: InboxRow, query: InboxCountQuery) =>
  (query.status === undefined || row.status === query.status) && (query.type === undefined || row.event_type === query.type) && (query.stale === undefined || row.stale === query.stale) &&
  (query.received_after === undefined || row.received_at >= query.received_after) &&
  (query.received_before === undefined || row.received_at < query.received_before);

/** The receiving side's reads on the memory store, by scanning its maps (it is for tests and development). */
export function memoryReceivedReads(source: MemoryReceivedSource): ReceivedReads {
  const selected = (query: InboxCountQuery) => [...source.inboxRows()].filter((row) => matches(row, query));
  return {
    inboxPage(query) {
      const page = selected(query)
        .sort((a, b) => b.received_at - a.received_at || (a.event_id < b.event_id ? -1 : 1))
        .slice(query.offset, query.offset + query.limit);
      return Promise.resolve(page.map(toInboxEvent));
    },
    inboxCount: (query) => Promise.resolve(selected(query).length),
    quarantineCount: async () => (await source.quarantine.list()).length,
    async receivedBuckets(range) {
      const { from, to, size, now } = range;
      if (isEmpty(range)) return [];
      const counts: BucketCount<ReceivedOutcome>[] = [];
      const add = (at: number, outcome: ReceivedOutcome) => {
        if (at >= from && at < to) counts.push({ bucket: Math.floor((at - from) / size), outcome, count: 1 });
      };
      for (const record of source.records()) add(record.firstSeenAt, record.state === 'completed' ? 'handled' : record.leaseUntil <= now ? 'failed' : 'pending');
      for (const row of source.inboxRows()) {
        add(row.received_at, row.status === 'done' ? (row.stale ? 'stale' : 'handled') : row.status === 'dead' ? 'failed' : 'pending');
      }
      for (const entry of await source.quarantine.list()) add(Date.parse(entry.first_received_at), 'quarantined');
      return mergeBucketCounts(counts);
    },
  };
}
