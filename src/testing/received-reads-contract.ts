import type { IdempotencyStore } from '../ports/idempotency-store.js';
import { eventRecordsOf } from '../ports/event-records.js';
import type { InboxInput, InboxStatus } from '../ports/inbox.js';
import { receivedReadsOf, type InboxCountQuery, type ReceivedReads } from '../ports/received-reads.js';
import type { ContractTestApi } from './contract-api.js';

const HOUR = 3_600_000;
const LEASE = 60_000;
const T0 = Date.UTC(2026, 10, 20, 0, 0, 0);

function entry(eventId: string, eventType: string, receivedAt: number): InboxInput {
  return {
    eventId,
    eventType,
    created: receivedAt,
    rawBody: Buffer.from(`{"id":"${eventId}"}`),
    headers: { 'content-type': 'application/json' },
    verified: { secretIndex: 1, signatureScheme: 'v1' },
    receivedAt,
    version: null,
  };
}

/**
 * The receiving side's reads (the dashboard's inbox pages and charts), run against every store of
 * this package: a page of the inbox with its total by status, type and the ordering guard's
 * verdict, and what was received per time bucket by outcome, direct mode, inbox and quarantine
 * alike. `create` returns a fresh, empty store.
 */
export function describeReceivedReads(test: ContractTestApi, name: string, create: () => Promise<IdempotencyStore> | IdempotencyStore): void {
  const { describe, it, expect, beforeEach, afterEach } = test;
  describe(`${name}: the received-side reads`, () => {
    let store: IdempotencyStore;
    let reads: ReceivedReads;
    beforeEach(async () => {
      store = await create();
      const offered = receivedReadsOf(store);
      if (!offered) throw new Error(`${name} offers no received-side reads`);
      reads = offered;
    });
    afterEach(async () => {
      await store.close();
    });

    /** e1..e5 received an hour apart: done, done but stale, dead, processing, pending again. */
    async function fiveInboxEvents(): Promise<void> {
      const inbox = store.inbox!;
      for (const [index, type] of ['invoice.paid', 'invoice.paid', 'customer.created', 'invoice.paid', 'customer.created'].entries()) {
        await inbox.enqueue(entry(`evt_${index + 1}`, type, T0 + index * HOUR));
      }
      const claimed = await inbox.claim(T0 + 10 * HOUR, LEASE, 10);
      const token = (id: string) => claimed.find((event) => event.eventId === id)!.token;
      expect(claimed).toHaveLength(5);
      await inbox.complete('evt_1', token('evt_1'), T0 + 10 * HOUR);
      await inbox.complete('evt_2', token('evt_2'), T0 + 10 * HOUR, { stale: true });
      await inbox.fail('evt_3', token('evt_3'), { code: 'HANDLER_FAILED', message: 'Error: ledger closed', retryAt: null });
      await inbox.release('evt_5', token('evt_5'));
    }

    it('pages the inbox newest first and counts by status, type and stale; a page and its count agree', async () => {
      await fiveInboxEvents();
      const ids = (events: { event_id: string }[]) => events.map((event) => event.event_id);
      expect(ids(await reads.inboxPage({ limit: 2, offset: 0 }))).toEqual(['evt_5', 'evt_4']);
      expect(ids(await reads.inboxPage({ limit: 2, offset: 2 }))).toEqual(['evt_3', 'evt_2']);
      expect(ids(await reads.inboxPage({ limit: 2, offset: 4 }))).toEqual(['evt_1']);
      expect(await reads.inboxCount({})).toBe(5);
      expect(ids(await reads.inboxPage({ status: 'done', limit: 10, offset: 0 }))).toEqual(['evt_2', 'evt_1']);
      expect(await reads.inboxCount({ status: 'done' })).toBe(2);
      expect(ids(await reads.inboxPage({ status: 'done', stale: true, limit: 10, offset: 0 }))).toEqual(['evt_2']);
      expect(await reads.inboxCount({ status: 'done', stale: false })).toBe(1);
      expect(ids(await reads.inboxPage({ type: 'customer.created', limit: 10, offset: 0 }))).toEqual(['evt_5', 'evt_3']);
      expect(await reads.inboxCount({ type: 'customer.created', status: 'dead' })).toBe(1);
      const [dead] = await reads.inboxPage({ status: 'dead', limit: 1, offset: 0 });
      expect(dead).toMatchObject({ event_id: 'evt_3', stale: false, last_error: { code: 'HANDLER_FAILED', message: 'Error: ledger closed' } });
      expect((await reads.inboxPage({ stale: true, limit: 1, offset: 0 }))[0]).toMatchObject({ event_id: 'evt_2', status: 'done', stale: true });
      expect(await reads.inboxCount({ type: 'nothing.here' })).toBe(0);
      expect(ids(await reads.inboxPage({ received_after: T0 + HOUR, received_before: T0 + 3 * HOUR, limit: 10, offset: 0 }))).toEqual(['evt_3', 'evt_2']);
      expect(await reads.inboxCount({ received_after: T0 + 3 * HOUR })).toBe(2);
    });

    it('pages and counts by every combination of filters as the events say (each combination is its own query)', async () => {
      await fiveInboxEvents();
      // The five events as fiveInboxEvents leaves them: id, type, status, stale, received.
      const known: [string, string, InboxStatus, boolean, number][] = [
        ['evt_1', 'invoice.paid', 'done', false, T0],
        ['evt_2', 'invoice.paid', 'done', true, T0 + HOUR],
        ['evt_3', 'customer.created', 'dead', false, T0 + 2 * HOUR],
        ['evt_4', 'invoice.paid', 'processing', false, T0 + 3 * HOUR],
        ['evt_5', 'customer.created', 'pending', false, T0 + 4 * HOUR],
      ];
      const values = { status: 'done' as const, type: 'invoice.paid', stale: false, received_after: T0 + HOUR, received_before: T0 + 4 * HOUR };
      const names = Object.keys(values) as (keyof typeof values)[];
      for (let mask = 0; mask < 2 ** names.length; mask++) {
        const query: InboxCountQuery = Object.fromEntries(names.filter((_, bit) => mask & (2 ** bit)).map((name) => [name, values[name]]));
        const expected = known
          .filter(([, type, status, stale, at]) =>
            (query.status === undefined || status === query.status) && (query.type === undefined || type === query.type) && (query.stale === undefined || stale === query.stale) &&
            (query.received_after === undefined || at >= query.received_after) && (query.received_before === undefined || at < query.received_before))
          .map(([id]) => id)
          .reverse();
        expect({ query, count: await reads.inboxCount(query) }).toEqual({ query, count: expected.length });
        const page = await reads.inboxPage({ ...query, limit: 2, offset: 1 });
        expect({ query, page: page.map((event) => event.event_id) }).toEqual({ query, page: expected.slice(1, 3) });
      }
    });

    it('lists direct-mode records newest first, all of them and by state, a page at a time; counts them', async () => {
      const records = eventRecordsOf(store);
      if (!records) return expect(records).toBeUndefined();
      for (let index = 0; index < 7; index++) {
        const claimed = await store.claim(`evt_r${index}`, { now: T0 + index * 1_000, leaseMs: LEASE });
        if (claimed.status !== 'claimed') throw new Error(`evt_r${index} not claimed`);
        if (index % 3 !== 1) await store.complete(`evt_r${index}`, claimed.token, T0 + index * 1_000 + 1);
      }
      const ids = async (query: Parameters<typeof records.list>[0]) => (await records.list(query)).map((record) => record.event_id);
      expect(await ids({ limit: 10, offset: 0 })).toEqual(['evt_r6', 'evt_r5', 'evt_r4', 'evt_r3', 'evt_r2', 'evt_r1', 'evt_r0']);
      expect(await ids({ limit: 3, offset: 2 })).toEqual(['evt_r4', 'evt_r3', 'evt_r2']);
      expect(await ids({ limit: 3, offset: 6 })).toEqual(['evt_r0']);
      expect(await ids({ state: 'processing', limit: 10, offset: 0 })).toEqual(['evt_r4', 'evt_r1']);
      expect(await ids({ state: 'completed', limit: 2, offset: 1 })).toEqual(['evt_r5', 'evt_r3']);
      expect([await records.count(), await records.count('completed'), await records.count('processing')]).toEqual([7, 5, 2]);
    });

    it('counts what was received per bucket and outcome: direct claims, inbox events and quarantined payloads, inside the range only', async () => {
      await fiveInboxEvents();
      const claim = async (id: string, at: number) => {
        const claimed = await store.claim(id, { now: at, leaseMs: LEASE, type: 'invoice.paid' });
        if (claimed.status !== 'claimed') throw new Error(`${id} not claimed`);
        return claimed.token;
      };
      await store.complete('evt_d1', await claim('evt_d1', T0 + 30 * 60_000), T0 + 31 * 60_000);
      await claim('evt_d2', T0 + 2 * HOUR + 1); // its handlers failed: the lease ran out long before `now`
      await claim('evt_d3', T0 + 23 * HOUR); // still leased at `now`
      await claim('evt_outside', T0 + 24 * HOUR); // `to` is exclusive
      await store.quarantine.put({ reason: 'invalid_payload', event_id: 'evt_q', event_type: 'invoice.paid', error_code: 'VALIDATION_ERROR', error_message: 'x', raw_body: Buffer.from('{}'), received_at: T0 + 3 * HOUR + 5 });
      await store.quarantine.put({ reason: 'unknown_event_type', event_id: 'evt_q2', event_type: 'nope', error_code: 'UNKNOWN_EVENT_TYPE', error_message: 'x', raw_body: Buffer.from('{"a":1}'), received_at: T0 - 1 });

      expect(await reads.quarantineCount()).toBe(2);
      const buckets = await reads.receivedBuckets({ from: T0, to: T0 + 24 * HOUR, size: 2 * HOUR, now: T0 + 23 * HOUR + 1 });
      expect(buckets).toEqual([
        { bucket: 0, outcome: 'handled', count: 2 }, // evt_1 (inbox), evt_d1 (direct)
        { bucket: 0, outcome: 'stale', count: 1 }, // evt_2
        { bucket: 1, outcome: 'failed', count: 2 }, // evt_3 dead, evt_d2 lease run out
        { bucket: 1, outcome: 'pending', count: 1 }, // evt_4 processing
        { bucket: 1, outcome: 'quarantined', count: 1 },
        { bucket: 2, outcome: 'pending', count: 1 }, // evt_5 pending again
        { bucket: 11, outcome: 'pending', count: 1 }, // evt_d3 leased
      ]);
      expect(await reads.receivedBuckets({ from: T0 + 30 * HOUR, to: T0 + 31 * HOUR, size: HOUR, now: T0 })).toEqual([]);
      // A range that is not a whole number of buckets: the last one is short, and ends at `to`.
      expect(await reads.receivedBuckets({ from: T0 + HOUR, to: T0 + 3 * HOUR + 6, size: 2 * HOUR, now: T0 + 23 * HOUR + 1 })).toEqual([
        { bucket: 0, outcome: 'failed', count: 2 }, // evt_3 dead, evt_d2 lease run out
        { bucket: 0, outcome: 'stale', count: 1 },
        { bucket: 1, outcome: 'pending', count: 1 }, // evt_4
        { bucket: 1, outcome: 'quarantined', count: 1 }, // evt_q, 5 ms after the bucket's start
      ]);
      expect(await reads.receivedBuckets({ from: T0, to: T0, size: HOUR, now: T0 })).toEqual([]);
      expect(await reads.receivedBuckets({ from: T0, to: T0 + HOUR, size: 0, now: T0 })).toEqual([]);
    });
  });
}
