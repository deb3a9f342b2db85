import { MIN_RETENTION_MS, type IdempotencyStore } from '../ports/idempotency-store.js';
import type { CatchUpStore } from '../ports/catch-up.js';
import type { ContractTestApi } from './contract-api.js';

const LEASE = 30_000;
const T0 = Date.UTC(2026, 10, 22, 9, 0, 0);

/**
 * The catch-up part of the store contract (`store.catchUp`), written once and run against
 * memoryStore, sqliteStore, postgresStore and yours: checkpoints saved, replaced, read back and
 * deleted by name; where event ids stand (handled, pending, failed, quarantined, unknown) across
 * direct-mode records, the inbox and the quarantine, read without claiming. `create` returns a
 * fresh, empty store that offers `catchUp` (and `inbox`, for the inbox's states).
 *
 * @example
 * describeCatchUpStore({ describe, it, expect, beforeEach, afterEach }, 'mysqlStore', (options) => mysqlStore(pool, options));
 */
export function describeCatchUpStore(
  test: ContractTestApi,
  name: string,
  create: (options: { retentionMs: number }) => Promise<IdempotencyStore> | IdempotencyStore,
): void {
  const { describe, it, expect, beforeEach, afterEach } = test;
  describe(`${name}: the catch-up contract`, () => {
    let store: IdempotencyStore;
    let catchUp: CatchUpStore;
    beforeEach(async () => {
      store = await create({ retentionMs: MIN_RETENTION_MS });
      catchUp = store.catchUp!;
    });
    afterEach(async () => {
      await store.close();
    });

    it('keeps a checkpoint per name: saved, replaced, read back exactly, deleted', async () => {
      expect(await catchUp.checkpoint('default')).toBeUndefined();
      const first = { name: 'default', cursor: 'ec1_first', last_event_id: 'evt_1', last_event_created: T0, updated_at: T0 + 5 };
      await catchUp.saveCheckpoint(first);
      await catchUp.saveCheckpoint({ name: 'other', cursor: 'ec1_other', last_event_id: null, last_event_created: null, updated_at: T0 });
      expect(await catchUp.checkpoint('default')).toEqual(first);
      const second = { ...first, cursor: 'ec1_second', last_event_id: 'evt_2', last_event_created: T0 + 1_000, updated_at: T0 + 2_000 };
      await catchUp.saveCheckpoint(second);
      expect(await catchUp.checkpoint('default')).toEqual(second);
      expect(await catchUp.checkpoint('other')).toEqual({ name: 'other', cursor: 'ec1_other', last_event_id: null, last_event_created: null, updated_at: T0 });
      expect(await catchUp.deleteCheckpoint('default')).toBe(true);
      expect(await catchUp.deleteCheckpoint('default')).toBe(false);
      expect(await catchUp.checkpoint('default')).toBeUndefined();
      expect(await catchUp.checkpoint('other')).toBeDefined();
    });

    it('tells where direct-mode records stand: completed is handled, a live lease pending, one given back failed, unknown left out', async () => {
      const done = await store.claim('evt_done', { now: T0, leaseMs: LEASE });
      const live = await store.claim('evt_live', { now: T0, leaseMs: LEASE });
      const given = await store.claim('evt_given', { now: T0, leaseMs: LEASE });
      if (done.status !== 'claimed' || live.status !== 'claimed' || given.status !== 'claimed') throw new Error('not claimed');
      await store.complete('evt_done', done.token, T0 + 1);
      await store.release('evt_given', given.token);
      const states = await catchUp.receivedStates(['evt_done', 'evt_live', 'evt_given', 'evt_never'], T0 + 10);
      expect(Object.fromEntries(states)).toEqual({ evt_done: 'handled', evt_live: 'pending', evt_given: 'failed' });
      // An expired lease is no longer pending: its handlers did not finish in time.
      expect((await catchUp.receivedStates(['evt_live'], T0 + LEASE + 1)).get('evt_live')).toBe('failed');
      // Reading claims nothing: the next delivery still claims the unknown id.
      expect(await store.claim('evt_never', { now: T0 + 20, leaseMs: LEASE })).toMatchObject({ status: 'claimed', takeover: false });
      expect((await catchUp.receivedStates([], T0)).size).toBe(0);
    });

    it('tells where inbox events and quarantined payloads stand, the strongest state winning', async () => {
      const inbox = store.inbox;
      if (inbox) {
        const input = (eventId: string) => ({
          eventId,
          eventType: 'invoice.paid',
          created: T0,
          rawBody: Buffer.from(`{"id":"${eventId}"}`),
          headers: {},
          verified: { secretIndex: -1, signatureScheme: 'v1' as const },
          receivedAt: T0,
          version: null,
        });
        await inbox.enqueue(input('evt_queued'));
        await inbox.enqueue(input('evt_ran'));
        await inbox.enqueue(input('evt_dead'));
        const claimed = await inbox.claim(T0, LEASE, 10);
        for (const event of claimed) {
          if (event.eventId === 'evt_ran') await inbox.complete(event.eventId, event.token, T0 + 1);
          else if (event.eventId === 'evt_dead') await inbox.fail(event.eventId, event.token, { code: 'HANDLER_FAILED', message: 'no', retryAt: null });
          else await inbox.release(event.eventId, event.token);
        }
        const states = await catchUp.receivedStates(['evt_queued', 'evt_ran', 'evt_dead'], T0 + 2);
        expect(Object.fromEntries(states)).toEqual({ evt_queued: 'pending', evt_ran: 'handled', evt_dead: 'failed' });
      }
      const quarantined = (eventId: string) => ({
        reason: 'invalid_payload' as const,
        event_id: eventId,
        event_type: 'invoice.paid',
        error_code: 'VALIDATION_ERROR',
        error_message: 'data.object.amount must be an integer',
        raw_body: Buffer.from(`{"id":"${eventId}"}`),
        received_at: T0,
      });
      await store.quarantine.put(quarantined('evt_bad'));
      await store.quarantine.put(quarantined('evt_fixed'));
      // Reprocessed after a fix: handled, though its quarantine entry is still there.
      const fixed = await store.claim('evt_fixed', { now: T0, leaseMs: LEASE });
      if (fixed.status !== 'claimed') throw new Error('not claimed');
      await store.complete('evt_fixed', fixed.token, T0 + 1);
      const states = await catchUp.receivedStates(['evt_bad', 'evt_fixed', 'evt_unknown'], T0 + 2);
      expect(Object.fromEntries(states)).toEqual({ evt_bad: 'quarantined', evt_fixed: 'handled' });
    });
  });
}
