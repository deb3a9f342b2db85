import { MIN_RETENTION_MS, type IdempotencyStore, type QuarantineInput } from '../ports/idempotency-store.js';
import type { ContractTestApi } from './contract-api.js';

const LEASE = 30_000;
const T0 = Date.UTC(2026, 10, 22, 9, 0, 0);

/**
 * The IdempotencyStore contract, written once and run against every store (memory, SQLite,
 * PostgreSQL, and yours): claims and their leases, completion by token, group commit's
 * per-event answers, pruning, the quarantine. `create` gets a retention and returns a fresh,
 * empty store; each case closes the store it got.
 *
 * @example
 * import { afterEach, beforeEach, describe, expect, it } from 'vitest';
 * import { describeIdempotencyStore } from 'acct-webhook/testing';
 *
 * describeIdempotencyStore({ describe, it, expect, beforeEach, afterEach }, 'mysqlStore', (options) => mysqlStore(pool, options));
 */
export function describeIdempotencyStore(
  test: ContractTestApi,
  name: string,
  create: (options: { retentionMs: number }) => Promise<IdempotencyStore> | IdempotencyStore,
): void {
  const { describe, it, expect, beforeEach, afterEach } = test;
  describe(`${name}: the IdempotencyStore contract`, () => {
    let store: IdempotencyStore;
    beforeEach(async () => {
      store = await create({ retentionMs: MIN_RETENTION_MS });
    });
    afterEach(async () => {
      await store.close();
    });

    it('claims a new event id with a token', async () => {
      const claim = await store.claim('evt_1', { now: T0, leaseMs: LEASE, type: 'invoice.paid' });
      expect(claim).toEqual({ status: 'claimed', token: expect.any(String), takeover: false });
    });

    it('answers in_progress with the lease end to a second claim while the first holds', async () => {
      await store.claim('evt_1', { now: T0, leaseMs: LEASE });
      expect(await store.claim('evt_1', { now: T0 + 1_000, leaseMs: LEASE })).toEqual({ status: 'in_progress', leaseExpiresAt: T0 + LEASE });
    });

    it('answers completed after complete(token), for good', async () => {
      const claim = await store.claim('evt_1', { now: T0, leaseMs: LEASE });
      if (claim.status !== 'claimed') throw new Error('not claimed');
      expect(await store.complete('evt_1', claim.token, T0 + 10)).toBe(true);
      expect(await store.claim('evt_1', { now: T0 + 20, leaseMs: LEASE })).toEqual({ status: 'completed', completedAt: T0 + 10 });
      expect(await store.claim('evt_1', { now: T0 + LEASE * 10, leaseMs: LEASE })).toMatchObject({ status: 'completed' });
    });

    it('lets the next delivery claim again after release(token)', async () => {
      const first = await store.claim('evt_1', { now: T0, leaseMs: LEASE });
      if (first.status !== 'claimed') throw new Error('not claimed');
      expect(await store.release('evt_1', first.token)).toBe(true);
      const second = await store.claim('evt_1', { now: T0 + 1, leaseMs: LEASE });
      expect(second).toMatchObject({ status: 'claimed', takeover: true });
      expect(second.status === 'claimed' && second.token).not.toBe(first.token);
    });

    it('lets a delivery take over an expired lease (a crashed process), and the old token then loses', async () => {
      const crashed = await store.claim('evt_1', { now: T0, leaseMs: LEASE });
      if (crashed.status !== 'claimed') throw new Error('not claimed');
      expect(await store.claim('evt_1', { now: T0 + LEASE - 1, leaseMs: LEASE })).toMatchObject({ status: 'in_progress' });
      const takeover = await store.claim('evt_1', { now: T0 + LEASE, leaseMs: LEASE });
      expect(takeover).toMatchObject({ status: 'claimed', takeover: true });
      expect(await store.complete('evt_1', crashed.token, T0 + LEASE + 1)).toBe(false);
      expect(await store.release('evt_1', crashed.token)).toBe(false);
      if (takeover.status !== 'claimed') throw new Error('not claimed');
      expect(await store.complete('evt_1', takeover.token, T0 + LEASE + 2)).toBe(true);
    });

    it('lets a released claim still complete if nobody took it over (a handler that finished late)', async () => {
      const claim = await store.claim('evt_1', { now: T0, leaseMs: LEASE });
      if (claim.status !== 'claimed') throw new Error('not claimed');
      await store.release('evt_1', claim.token);
      expect(await store.complete('evt_1', claim.token, T0 + 5)).toBe(true);
      expect(await store.claim('evt_1', { now: T0 + 6, leaseMs: LEASE })).toMatchObject({ status: 'completed' });
    });

    it('refuses complete and release with a wrong token or for an unknown id', async () => {
      await store.claim('evt_1', { now: T0, leaseMs: LEASE });
      expect(await store.complete('evt_1', 'not-the-token', T0)).toBe(false);
      expect(await store.release('evt_1', 'not-the-token')).toBe(false);
      expect(await store.complete('evt_unknown', 'x', T0)).toBe(false);
      expect(await store.claim('evt_1', { now: T0 + 1, leaseMs: LEASE })).toMatchObject({ status: 'in_progress' });
    });

    it('keeps events apart', async () => {
      const a = await store.claim('evt_a', { now: T0, leaseMs: LEASE });
      const b = await store.claim('evt_b', { now: T0, leaseMs: LEASE });
      expect([a.status, b.status]).toEqual(['claimed', 'claimed']);
    });

    // Submitted in one turn of the event loop, as concurrent deliveries are: stores that batch
    // their writes (group commit) must answer each one as if it had run alone.
    describe('claims and completions submitted together', () => {
      it('of several claims of one id submitted together, exactly one is claimed; the others find its lease', async () => {
        const results = await Promise.all([
          store.claim('evt_1', { now: T0, leaseMs: LEASE }),
          store.claim('evt_2', { now: T0, leaseMs: LEASE }),
          store.claim('evt_1', { now: T0, leaseMs: LEASE }),
          store.claim('evt_1', { now: T0, leaseMs: LEASE }),
        ]);
        expect(results[1]).toMatchObject({ status: 'claimed', takeover: false });
        const ofOne = [results[0], results[2], results[3]];
        expect(ofOne.filter((result) => result?.status === 'claimed')).toHaveLength(1);
        expect(ofOne.filter((result) => result?.status === 'in_progress')).toEqual(Array(2).fill({ status: 'in_progress', leaseExpiresAt: T0 + LEASE }));
      });

      it('answers each claim by its own row when some of them conflict: new, completed, held, expired', async () => {
        const done = await store.claim('evt_done', { now: T0, leaseMs: LEASE });
        if (done.status !== 'claimed') throw new Error('not claimed');
        await store.complete('evt_done', done.token, T0 + 1);
        await store.claim('evt_held', { now: T0 + LEASE, leaseMs: LEASE });
        await store.claim('evt_expired', { now: T0, leaseMs: LEASE });
        const later = T0 + LEASE + 10;
        const results = await Promise.all(['evt_new', 'evt_done', 'evt_held', 'evt_expired'].map((id) => store.claim(id, { now: later, leaseMs: LEASE })));
        expect(results).toEqual([
          { status: 'claimed', token: expect.any(String), takeover: false },
          { status: 'completed', completedAt: T0 + 1 },
          { status: 'in_progress', leaseExpiresAt: T0 + 2 * LEASE },
          { status: 'claimed', token: expect.any(String), takeover: true },
        ]);
      });

      it('completes each event by its own token: a wrong token or a second completion in the same batch is refused', async () => {
        const claims = await Promise.all(['evt_a', 'evt_b'].map((id) => store.claim(id, { now: T0, leaseMs: LEASE })));
        const [a, b] = claims.map((claim) => (claim.status === 'claimed' ? claim.token : ''));
        const results = await Promise.all([
          store.complete('evt_a', a!, T0 + 1),
          store.complete('evt_b', 'not-the-token', T0 + 1),
          store.complete('evt_a', a!, T0 + 2),
          store.complete('evt_unknown', b!, T0 + 1),
        ]);
        expect(results).toEqual([true, false, false, false]);
        expect(await store.claim('evt_a', { now: T0 + 3, leaseMs: LEASE })).toEqual({ status: 'completed', completedAt: T0 + 1 });
        expect(await store.claim('evt_b', { now: T0 + 3, leaseMs: LEASE })).toMatchObject({ status: 'in_progress' });
      });
    });

    it('prunes completed records only after the retention, never in-flight ones', async () => {
      for (const id of ['evt_old', 'evt_new']) {
        const claim = await store.claim(id, { now: T0, leaseMs: LEASE });
        if (claim.status !== 'claimed') throw new Error('not claimed');
        await store.complete(id, claim.token, id === 'evt_old' ? T0 : T0 + 3_600_000);
      }
      await store.claim('evt_processing', { now: T0, leaseMs: LEASE });
      expect(store.retentionMs).toBe(MIN_RETENTION_MS);
      expect(await store.prune(T0 + MIN_RETENTION_MS - 1)).toBe(0);
      expect(await store.prune(T0 + MIN_RETENTION_MS)).toBe(1);
      expect(await store.claim('evt_old', { now: T0 + MIN_RETENTION_MS, leaseMs: LEASE })).toMatchObject({ status: 'claimed' });
      expect(await store.claim('evt_new', { now: T0 + MIN_RETENTION_MS, leaseMs: LEASE })).toMatchObject({ status: 'completed' });
      expect(await store.claim('evt_processing', { now: T0 + 1, leaseMs: LEASE })).toMatchObject({ status: 'in_progress' });
    });

    const bad: QuarantineInput = {
      reason: 'invalid_payload',
      event_id: 'evt_bad',
      event_type: 'invoice.paid',
      error_code: 'VALIDATION_ERROR',
      error_message: 'data.object.currency: must be an ISO 4217 code',
      raw_body: Buffer.from('{"id":"evt_bad","currency":"€"}'),
      received_at: T0,
    };

    it('quarantines a payload with its raw bytes, and counts redeliveries instead of duplicating it', async () => {
      const first = await store.quarantine.put(bad);
      const again = await store.quarantine.put({ ...bad, received_at: T0 + 60_000 });
      expect(again.id).toBe(first.id);
      expect(again).toMatchObject({
        deliveries: 2,
        first_received_at: new Date(T0).toISOString(),
        last_received_at: new Date(T0 + 60_000).toISOString(),
        event_id: 'evt_bad',
      });
      const [listed, ...rest] = await store.quarantine.list();
      expect(rest).toHaveLength(0);
      expect(Buffer.compare(listed!.raw_body, bad.raw_body)).toBe(0);
      expect(await store.quarantine.get(first.id)).toMatchObject({ error_code: 'VALIDATION_ERROR', reason: 'invalid_payload' });
    });

    it('keys a quarantined payload without an event id by its bytes, keeps any bytes, lists by reason, deletes', async () => {
      const invalidUtf8 = Buffer.from([0x7b, 0xc3, 0x28, 0x7d]);
      const noId = await store.quarantine.put({ ...bad, event_id: null, event_type: null, raw_body: invalidUtf8 });
      await store.quarantine.put({ ...bad, reason: 'unknown_event_type', event_id: 'evt_future', event_type: 'invoice.archived' });
      expect(Buffer.compare((await store.quarantine.get(noId.id))!.raw_body, invalidUtf8)).toBe(0);
      expect((await store.quarantine.list({ reason: 'unknown_event_type' })).map((entry) => entry.event_id)).toEqual(['evt_future']);
      expect(await store.quarantine.delete(noId.id)).toBe(true);
      expect(await store.quarantine.delete(noId.id)).toBe(false);
      expect(await store.quarantine.get(noId.id)).toBeUndefined();
    });
  });
}
