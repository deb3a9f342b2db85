import type { IdempotencyStore } from '../ports/idempotency-store.js';
import type { InboxInput } from '../ports/inbox.js';
import { receivedReadsOf, type ReceivedReads } from '../ports/received-reads.js';
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
    });
  });
}
