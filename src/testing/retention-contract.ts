import { recordingOf } from '../dispatcher/attempt-recording.js';
import { afterAttempt } from '../dispatcher/schedule.js';
import { sampleEvent } from '../events/sample-event.js';
import type { DispatchStore } from '../ports/dispatch-store.js';
import { PAYLOAD_REMOVED } from '../ports/retention.js';
import type { ContractTestApi } from './contract-api.js';
import { attemptOf, closingStores, NOW, webhook, type DispatchStoreFixture } from './dispatch-store-contract.js';

const MINUTE = 60_000;

/**
 * Stores one event of `business` with a delivery to wh_1 and makes its first attempt at `at`:
 * delivered, failed for good (a schedule of one attempt), or failed with a retry to come.
 */
async function deliveryAt(storage: DispatchStore, id: string, at: number, outcome: 'delivered' | 'finally_failed' | 'retrying', business = 'biz_retention'): Promise<void> {
  const event = sampleEvent('invoice.paid', { id: `evt_${id}`, business_id: business });
  await storage.insertEvent(
    { id: event.id, type: event.type, payload: JSON.stringify(event), correlation_id: event.correlation_id, test: false, created_at: at },
    [{ id: `dlv_${id}`, webhook_id: 'wh_1', next_attempt_at: at, lease: { owner: 'w', until: at + MINUTE } }],
  );
  const job = (await storage.loadJob(`dlv_${id}`))!;
  const delivered = outcome === 'delivered';
  const attempt = attemptOf(job, { attempted_at: at, response_status: delivered ? 200 : 500, response_body: `answer for ${id}`, error_kind: delivered ? null : 'http_status' });
  const schedule = outcome === 'retrying' ? [0, 60] : [0];
  await storage.recordAttempt(job.delivery.id, recordingOf(attempt, afterAttempt({ delivered, manual: false, leaseOwner: 'w', startedAt: at, schedule })));
}

/**
 * The delivery log's retention, as a DispatchStore that offers it must keep it (SQLite,
 * PostgreSQL, yours): deliveries that are over pruned in batches with their attempts and events,
 * payloads and response bodies replaced by the marker with the metadata kept, an erase by
 * business; nothing still retrying ever pruned or emptied. Times are passed in: no clock is read.
 *
 * @example
 * describeDeliveryRetention({ describe, it, expect, beforeEach, afterEach }, 'mysqlDispatchStore', async () => {
 *   const database = await freshMysqlDatabase();
 *   return { open: () => mysqlDispatchStore(database.url) };
 * });
 */
export function describeDeliveryRetention(test: ContractTestApi, name: string, createFixture: () => Promise<DispatchStoreFixture> | DispatchStoreFixture): void {
  const { describe, it, expect } = test;
  describe(`${name}: the delivery log's retention`, () => {
    const create = closingStores(test, createFixture);

    async function seeded(): Promise<DispatchStore & Required<Pick<DispatchStore, 'pruneDeliveries' | 'removePayloads' | 'eraseBusiness'>>> {
      const storage = await (await create()).open();
      if (!storage.pruneDeliveries || !storage.removePayloads || !storage.eraseBusiness) throw new Error(`${name} offers no retention`);
      await storage.insertWebhook(webhook('wh_1', { events: ['*'] }));
      return storage as never;
    }

    it('prunes deliveries that are over and last changed before the cutoff, in batches, with their attempts and then their events; never one still retrying', async () => {
      const storage = await seeded();
      for (let i = 0; i < 4; i++) await deliveryAt(storage, `old_${i}`, NOW + i, 'delivered');
      await deliveryAt(storage, 'old_failed', NOW + 4, 'finally_failed');
      await deliveryAt(storage, 'old_retrying', NOW + 5, 'retrying');
      await deliveryAt(storage, 'recent', NOW + 10 * MINUTE, 'delivered');
      const cutoff = NOW + MINUTE;

      expect([
        await storage.pruneDeliveries(cutoff, 2),
        await storage.pruneDeliveries(cutoff, 2),
        await storage.pruneDeliveries(cutoff, 2),
        await storage.pruneDeliveries(cutoff, 2),
      ]).toEqual([2, 2, 1, 0]);
      for (const id of ['old_0', 'old_1', 'old_2', 'old_3', 'old_failed']) {
        expect(await storage.getDelivery(`dlv_${id}`)).toBeUndefined();
        expect(await storage.listAttempts(`dlv_${id}`)).toEqual([]);
      }
      // Their events went with them: the id is free again.
      expect(await storage.insertEvent({ ...(await storedOf(storage, 'recent')), id: 'evt_old_0' }, [])).toMatchObject({ inserted: true });
      // Still retrying, long ago: kept, with its event and attempt; and what is recent is kept.
      expect(await storage.getDelivery('dlv_old_retrying')).toMatchObject({ status: 'retrying', attempt_count: 1 });
      expect(JSON.parse((await storage.loadJob('dlv_old_retrying'))!.event.payload)).toMatchObject({ id: 'evt_old_retrying', business_id: 'biz_retention' });
      expect(await storage.listAttempts('dlv_old_retrying')).toHaveLength(1);
      expect(await storage.getDelivery('dlv_recent')).toMatchObject({ status: 'delivered' });
      expect(await storage.listAttempts('dlv_recent')).toHaveLength(1);
    });

    it('replaces payloads and response bodies by the marker once every delivery of the event is over, keeping the metadata', async () => {
      const storage = await seeded();
      await deliveryAt(storage, 'a', NOW, 'delivered');
      await deliveryAt(storage, 'b', NOW + 1, 'finally_failed');
      await deliveryAt(storage, 'retrying', NOW + 2, 'retrying');
      await deliveryAt(storage, 'recent', NOW + 10 * MINUTE, 'delivered');
      const cutoff = NOW + MINUTE;

      expect([await storage.removePayloads(cutoff, 1, NOW + 20 * MINUTE), await storage.removePayloads(cutoff, 1, NOW + 20 * MINUTE), await storage.removePayloads(cutoff, 1, NOW + 20 * MINUTE)]).toEqual([
        1, 1, 0,
      ]);
      for (const id of ['a', 'b']) {
        const [attempt] = await storage.listAttempts(`dlv_${id}`);
        expect(attempt).toMatchObject({ request_payload: PAYLOAD_REMOVED, response_body: PAYLOAD_REMOVED, event_id: `evt_${id}`, attempt_number: 1, response_time_ms: 12 });
        expect(await storage.getDelivery(`dlv_${id}`)).toMatchObject({ status: id === 'a' ? 'delivered' : 'finally_failed', attempt_count: 1 });
      }
      expect((await storage.listAttempts('dlv_a'))[0]).toMatchObject({ response_status: 200 });
      // A delivery still retrying needs its payload; a recent one keeps it.
      expect((await storage.loadJob('dlv_retrying'))!.event.payload).not.toBe(PAYLOAD_REMOVED);
      expect((await storage.listAttempts('dlv_retrying'))[0]).toMatchObject({ response_body: 'answer for retrying' });
      expect((await storage.listAttempts('dlv_recent'))[0]).toMatchObject({ response_body: 'answer for recent' });
      expect((await storage.listAttempts('dlv_recent'))[0]).not.toMatchObject({ request_payload: PAYLOAD_REMOVED });
    });

    it('erases every payload of one business: its events and response bodies, ending what it still had to send; other businesses untouched', async () => {
      const storage = await seeded();
      await deliveryAt(storage, 'x', NOW, 'delivered', 'biz_gone');
      await deliveryAt(storage, 'y', NOW + 1, 'retrying', 'biz_gone');
      await deliveryAt(storage, 'z', NOW + 2, 'delivered', 'biz_kept');

      expect(await storage.eraseBusiness('biz_gone', NOW + 5)).toEqual({ events: 2, attempts: 2, deliveriesEnded: 1, webhooks: 0 });
      for (const id of ['x', 'y']) expect((await storage.listAttempts(`dlv_${id}`))[0]).toMatchObject({ request_payload: PAYLOAD_REMOVED, response_body: PAYLOAD_REMOVED });
      expect(await storage.getDelivery('dlv_y')).toMatchObject({ status: 'finally_failed', next_attempt_at: null, updated_at: NOW + 5 });
      expect(await storage.claimDue({ now: NOW + 100 * MINUTE, limit: 10, lease: { owner: 'w2', until: NOW + 200 * MINUTE } })).toEqual([]);
      expect((await storage.listAttempts('dlv_z'))[0]).toMatchObject({ response_body: 'answer for z' });
      expect((await storage.listAttempts('dlv_z'))[0]).not.toMatchObject({ request_payload: PAYLOAD_REMOVED });
      expect(await storage.eraseBusiness('biz_gone', NOW + 6)).toEqual({ events: 0, attempts: 0, deliveriesEnded: 0, webhooks: 0 });
    });
  });
}

async function storedOf(storage: DispatchStore, id: string) {
  return (await storage.loadJob(`dlv_${id}`))!.event;
}
