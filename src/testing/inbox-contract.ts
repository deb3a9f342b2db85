import { MIN_RETENTION_MS, type IdempotencyStore } from '../ports/idempotency-store.js';
import type { InboxInput, InboxStore } from '../ports/inbox.js';
import type { ObjectVersion } from '../ports/versions.js';
import type { ContractTestApi } from './contract-api.js';

const LEASE = 60_000;
const T0 = Date.UTC(2026, 10, 22, 9, 0, 0);

/** An inbox entry; `version` given as [key, created offset, rank] puts it under the ordering guard. */
function entry(eventId: string, receivedAt: number, version?: [string, number, number]): InboxInput {
  return {
    eventId,
    eventType: 'invoice.paid',
    created: T0 + (version?.[1] ?? 0),
    rawBody: Buffer.from(`{"id":"${eventId}"}`),
    headers: { 'x-svc-timestamp': String(Math.floor(receivedAt / 1000)), 'content-type': 'application/json' },
    verified: { secretIndex: 1, signatureScheme: 'v1' },
    receivedAt,
    version: version ? { key: version[0], created: T0 + version[1], rank: version[2], eventId } : null,
  };
}

const ids = (claimed: { eventId: string }[]) => claimed.map((event) => event.eventId).sort();

/**
 * The inbox part of the store contract (inbox mode and the ordering guard), written once and run
 * against memoryStore, sqliteStore, postgresStore and yours: enqueue's dedupe, claims with
 * leases and takeovers, retries and `dead`, one object's events one at a time and in order,
 * listing, purging, pruning. `create` returns a fresh, empty store with an inbox.
 *
 * @example
 * describeInboxStore({ describe, it, expect, beforeEach, afterEach }, 'mysqlStore', (options) => mysqlStore(pool, options));
 */
export function describeInboxStore(
  test: ContractTestApi,
  name: string,
  create: (options: { retentionMs: number }) => Promise<IdempotencyStore> | IdempotencyStore,
): void {
  const { describe, it, expect, beforeEach, afterEach } = test;
  describe(`${name}: the inbox contract`, () => {
    let store: IdempotencyStore;
    let inbox: InboxStore;
    beforeEach(async () => {
      store = await create({ retentionMs: MIN_RETENTION_MS });
      inbox = store.inbox!;
    });
    afterEach(async () => {
      await store.close();
    });

    it('stores an event once: a second enqueue of the id is a duplicate, and so is an id handled in direct mode', async () => {
      expect(await inbox.enqueue(entry('evt_1', T0))).toEqual({ status: 'queued' });
      expect(await inbox.enqueue(entry('evt_1', T0 + 5))).toEqual({ status: 'duplicate', requeued: false });
      const direct = await store.claim('evt_direct', { now: T0, leaseMs: LEASE });
      if (direct.status !== 'claimed') throw new Error('not claimed');
      await store.complete('evt_direct', direct.token, T0);
      expect(await inbox.enqueue(entry('evt_direct', T0 + 5))).toEqual({ status: 'duplicate', requeued: false });
      expect(await inbox.get('evt_direct')).toBeUndefined();
      expect(await inbox.get('evt_1')).toMatchObject({
        event_id: 'evt_1',
        event_type: 'invoice.paid',
        status: 'pending',
        attempts: 0,
        received_at: new Date(T0).toISOString(),
        next_attempt_at: new Date(T0).toISOString(),
        headers: { 'x-svc-timestamp': String(Math.floor(T0 / 1000)), 'content-type': 'application/json' },
        raw_body: Buffer.from('{"id":"evt_1"}'),
        stale: false,
        last_error: null,
      });
    });

    it('gives a due event to one claim at a time, with its body and how it was verified', async () => {
      await inbox.enqueue(entry('evt_1', T0));
      const [claimed] = await inbox.claim(T0, LEASE, 10);
      expect(claimed).toEqual({
        eventId: 'evt_1',
        token: expect.any(String),
        rawBody: Buffer.from('{"id":"evt_1"}'),
        verified: { secretIndex: 1, signatureScheme: 'v1', scheme: 'svc' },
        receivedAt: T0,
        attempt: 1,
        version: null,
      });
      expect(await inbox.claim(T0 + 1, LEASE, 10)).toEqual([]);
      expect((await inbox.get('evt_1'))?.status).toBe('processing');
    });

    it('claims no more than the limit, oldest due first', async () => {
      for (let i = 0; i < 5; i++) await inbox.enqueue(entry(`evt_${i}`, T0 + i));
      expect(ids(await inbox.claim(T0 + 10, LEASE, 2))).toEqual(['evt_0', 'evt_1']);
      expect(ids(await inbox.claim(T0 + 10, LEASE, 10))).toEqual(['evt_2', 'evt_3', 'evt_4']);
    });

    it('lets another worker take an event over when its lease runs out; the old token then loses', async () => {
      await inbox.enqueue(entry('evt_1', T0));
      const [crashed] = await inbox.claim(T0, LEASE, 1);
      expect(await inbox.claim(T0 + LEASE - 1, LEASE, 1)).toEqual([]);
      const [takeover] = await inbox.claim(T0 + LEASE, LEASE, 1);
      expect(takeover).toMatchObject({ eventId: 'evt_1', attempt: 2 });
      expect(await inbox.complete('evt_1', crashed!.token, T0 + LEASE + 1)).toBe(false);
      expect(await inbox.fail('evt_1', crashed!.token, { code: 'HANDLER_FAILED', message: 'x', retryAt: T0 })).toBe(false);
      expect(await inbox.complete('evt_1', takeover!.token, T0 + LEASE + 2)).toBe(true);
      expect(await inbox.get('evt_1')).toMatchObject({ status: 'done', completed_at: new Date(T0 + LEASE + 2).toISOString(), attempts: 2 });
    });

    it('keeps a failed event pending until its retry is due, then dead after the last; a redelivery of a dead event requeues it', async () => {
      await inbox.enqueue(entry('evt_1', T0));
      const [first] = await inbox.claim(T0, LEASE, 1);
      expect(await inbox.fail('evt_1', first!.token, { code: 'HANDLER_FAILED', message: 'bank API down', retryAt: T0 + 1_000 })).toBe(true);
      expect(await inbox.get('evt_1')).toMatchObject({
        status: 'pending',
        next_attempt_at: new Date(T0 + 1_000).toISOString(),
        last_error: { code: 'HANDLER_FAILED', message: 'bank API down' },
      });
      expect(await inbox.nextDueAt()).toBe(T0 + 1_000);
      expect(await inbox.claim(T0 + 999, LEASE, 1)).toEqual([]);
      const [second] = await inbox.claim(T0 + 1_000, LEASE, 1);
      expect(second?.attempt).toBe(2);
      await inbox.fail('evt_1', second!.token, { code: 'HANDLER_TIMEOUT', message: 'slow', retryAt: null });
      expect(await inbox.get('evt_1')).toMatchObject({ status: 'dead', attempts: 2, next_attempt_at: null, last_error: { code: 'HANDLER_TIMEOUT' } });
      expect(await inbox.claim(T0 + 10 * LEASE, LEASE, 1)).toEqual([]);
      expect(await inbox.nextDueAt()).toBeNull();

      expect(await inbox.enqueue(entry('evt_1', T0 + 5_000))).toEqual({ status: 'duplicate', requeued: true });
      expect(await inbox.get('evt_1')).toMatchObject({ status: 'pending', attempts: 0 });
    });

    it("keeps a failure's message exactly as given: a kilobyte of multi-byte text with a NUL in it, in get and in list", async () => {
      await inbox.enqueue(entry('evt_1', T0));
      const [claimed] = await inbox.claim(T0, LEASE, 1);
      // 1 023 bytes: "TypeError: Kunde " (17), 300 × "€" (900), " \u0000 " (3), "😀" (4), the rest ASCII.
      const message = `TypeError: Kunde ${'€'.repeat(300)} \u0000 😀 ${'x'.repeat(1_023 - 17 - 900 - 3 - 4 - 1)}`;
      expect(Buffer.byteLength(message)).toBe(1_023);
      await inbox.fail('evt_1', claimed!.token, { code: 'HANDLER_FAILED', message, retryAt: null });
      expect((await inbox.get('evt_1'))?.last_error).toEqual({ code: 'HANDLER_FAILED', message });
      expect((await inbox.list({ status: 'dead' })).map((event) => event.last_error)).toEqual([{ code: 'HANDLER_FAILED', message }]);
    });

    it('gives a released claim back without counting the run', async () => {
      await inbox.enqueue(entry('evt_1', T0));
      const [claimed] = await inbox.claim(T0, LEASE, 1);
      expect(await inbox.release('evt_1', claimed!.token)).toBe(true);
      expect(await inbox.get('evt_1')).toMatchObject({ status: 'pending', attempts: 0 });
      expect((await inbox.claim(T0 + 1, LEASE, 1))[0]?.attempt).toBe(1);
    });

    it("runs one object's events one at a time, oldest first by (created, rank, id), whatever the arrival order", async () => {
      await inbox.enqueue(entry('evt_paid', T0, ['invoice:inv_1', 2_000, 2]));
      await inbox.enqueue(entry('evt_sent_b', T0 + 1, ['invoice:inv_1', 1_000, 1]));
      await inbox.enqueue(entry('evt_sent_a', T0 + 2, ['invoice:inv_1', 1_000, 1]));
      await inbox.enqueue(entry('evt_created', T0 + 3, ['invoice:inv_1', 1_000, 0]));
      await inbox.enqueue(entry('evt_other', T0 + 4, ['invoice:inv_2', 0, 0]));
      const order: string[] = [];
      for (let now = T0 + 10; order.length < 5; now++) {
        const claimed = await inbox.claim(now, LEASE, 10);
        // Never two events of one object at once.
        expect(new Set(claimed.map((event) => event.version?.key)).size).toBe(claimed.length);
        for (const event of claimed) {
          order.push(event.eventId);
          await inbox.complete(event.eventId, event.token, now, { version: event.version });
        }
      }
      expect(order.filter((id) => id !== 'evt_other')).toEqual(['evt_created', 'evt_sent_a', 'evt_sent_b', 'evt_paid']);
      expect(await store.versions!.newest('invoice:inv_1')).toEqual({ key: 'invoice:inv_1', created: T0 + 2_000, rank: 2, eventId: 'evt_paid' });
    });

    it("holds an object's later events back while an older one waits for its retry; a dead one no longer holds them", async () => {
      await inbox.enqueue(entry('evt_old', T0, ['customer:cus_1', 0, 1]));
      await inbox.enqueue(entry('evt_new', T0 + 1, ['customer:cus_1', 1_000, 1]));
      const [old] = await inbox.claim(T0 + 2, LEASE, 10);
      expect(old?.eventId).toBe('evt_old');
      await inbox.fail('evt_old', old!.token, { code: 'HANDLER_FAILED', message: 'x', retryAt: T0 + 60_000 });
      expect(await inbox.claim(T0 + 3, LEASE, 10)).toEqual([]);
      const [again] = await inbox.claim(T0 + 60_000, LEASE, 10);
      expect(again?.eventId).toBe('evt_old');
      await inbox.fail('evt_old', again!.token, { code: 'HANDLER_FAILED', message: 'x', retryAt: null });
      expect(ids(await inbox.claim(T0 + 60_001, LEASE, 10))).toEqual(['evt_new']);
    });

    it('keeps the newest version of an object whatever order completions come in', async () => {
      const version = (eventId: string, created: number, rank = 0): ObjectVersion => ({ key: 'invoice:inv_9', created: T0 + created, rank, eventId });
      for (const [id, v] of [
        ['evt_b', version('evt_b', 5_000)],
        ['evt_a', version('evt_a', 1_000)],
        ['evt_c', version('evt_c', 5_000, 3)],
      ] as const) {
        const claim = await store.claim(id, { now: T0, leaseMs: LEASE });
        if (claim.status !== 'claimed') throw new Error('not claimed');
        await store.complete(id, claim.token, T0, { version: v });
      }
      expect(await store.versions!.newest('invoice:inv_9')).toEqual(version('evt_c', 5_000, 3));
      expect(await store.versions!.newest('invoice:unknown')).toBeUndefined();
    });

    it('lists newest first with filters, counts by status, and retries or purges only what may be', async () => {
      await inbox.enqueue(entry('evt_1', T0));
      await inbox.enqueue({ ...entry('evt_2', T0 + 1), eventType: 'customer.created' });
      await inbox.enqueue(entry('evt_3', T0 + 2));
      const [one, two] = await inbox.claim(T0 + 5, LEASE, 2);
      await inbox.complete(one!.eventId, one!.token, T0 + 6);
      await inbox.fail(two!.eventId, two!.token, { code: 'HANDLER_FAILED', message: 'x', retryAt: null });

      expect((await inbox.list()).map((event) => event.event_id)).toEqual(['evt_3', 'evt_2', 'evt_1']);
      expect((await inbox.list({ type: 'customer.created' })).map((event) => event.event_id)).toEqual(['evt_2']);
      expect((await inbox.list({ status: 'pending', limit: 5 })).map((event) => event.event_id)).toEqual(['evt_3']);
      expect(await inbox.list({ limit: 1 })).toHaveLength(1);
      expect(await inbox.stats(T0 + 1_002)).toEqual({
        pending: 1,
        processing: 0,
        done: 1,
        dead: 1,
        oldest_pending_at: new Date(T0 + 2).toISOString(),
        oldest_pending_age_ms: 1_000,
      });

      expect(await inbox.retry('evt_1', T0 + 10)).toBeUndefined();
      expect(await inbox.retry('evt_2', T0 + 10)).toMatchObject({ status: 'pending', attempts: 0, next_attempt_at: new Date(T0 + 10).toISOString() });
      expect(await inbox.purge('done', T0)).toBe(0);
      expect(await inbox.purge('done', T0 + 1)).toBe(1);
      expect(await inbox.get('evt_1')).toBeUndefined();
      expect(await inbox.purge('dead', T0 + 100)).toBe(0);
    });

    it('prunes done events with the records after the retention, and keeps dead ones', async () => {
      await inbox.enqueue(entry('evt_done', T0));
      await inbox.enqueue(entry('evt_dead', T0));
      for (const claimed of await inbox.claim(T0, LEASE, 2)) {
        if (claimed.eventId === 'evt_done') await inbox.complete(claimed.eventId, claimed.token, T0);
        else await inbox.fail(claimed.eventId, claimed.token, { code: 'HANDLER_FAILED', message: 'x', retryAt: null });
      }
      await store.prune(T0 + MIN_RETENTION_MS - 1);
      expect(await inbox.get('evt_done')).toBeDefined();
      await store.prune(T0 + MIN_RETENTION_MS);
      expect(await inbox.get('evt_done')).toBeUndefined();
      expect((await inbox.get('evt_dead'))?.status).toBe('dead');
    });
  });
}
