import { recordingOf } from '../dispatcher/attempt-recording.js';
import { afterAttempt } from '../dispatcher/schedule.js';
import { dispatchReadsOf } from '../ports/dispatch-reads.js';
import type { ContractTestApi } from './contract-api.js';
import { attemptOf, NOW, storedEvent, webhook, type DispatchStoreFixture } from './dispatch-store-contract.js';

const HOUR = 3_600_000;

/**
 * The sending side's reads (the dashboard's delivery charts), run against every dispatch store of
 * this package: deliveries by the bucket of their creation and their status now, for all
 * registrations or one, inside the range only.
 */
export function describeDispatchReads(test: ContractTestApi, name: string, createFixture: () => Promise<DispatchStoreFixture> | DispatchStoreFixture): void {
  const { describe, it, expect } = test;
  describe(`${name}: the sending-side reads`, () => {
    it('counts deliveries per bucket of their creation by status, for every registration or one', async () => {
      const storage = await (await createFixture()).open();
      const reads = dispatchReadsOf(storage);
      if (!reads) throw new Error(`${name} offers no sending-side reads`);
      await storage.insertWebhook(webhook('wh_1'));
      await storage.insertWebhook(webhook('wh_2'));
      const created: [string, string, number][] = [
        ['dlv_delivered', 'wh_1', NOW],
        ['dlv_retrying', 'wh_1', NOW + HOUR / 2],
        ['dlv_failed', 'wh_1', NOW + 2 * HOUR + 1],
        ['dlv_other', 'wh_2', NOW + 3 * HOUR],
        ['dlv_outside', 'wh_1', NOW + 24 * HOUR],
        ['dlv_before', 'wh_1', NOW - 1],
      ];
      for (const [id, webhookId, at] of created) await storage.insertEvent(storedEvent(`evt_${id}`, at), [{ id, webhook_id: webhookId, next_attempt_at: at }]);
      const jobs = await storage.claimDue({ now: NOW + 30 * HOUR, limit: 10, lease: { owner: 'reads', until: NOW + 31 * HOUR } });
      const job = (id: string) => jobs.find((claimed) => claimed.delivery.id === id)!;
      const outcome = (delivered: boolean, schedule: number[]) => afterAttempt({ delivered, manual: false, leaseOwner: 'reads', startedAt: NOW, schedule });
      const delivered = attemptOf(job('dlv_delivered'), { response_status: 204, error_kind: null, error_message: null });
      await storage.recordAttempt('dlv_delivered', recordingOf(delivered, outcome(true, [0, 60])));
      await storage.recordAttempt('dlv_failed', recordingOf(attemptOf(job('dlv_failed')), outcome(false, [0])));
      await storage.recordAttempt('dlv_retrying', recordingOf(attemptOf(job('dlv_retrying')), outcome(false, [0, 60])));
      expect((await storage.getDelivery('dlv_failed'))?.status).toBe('finally_failed');

      const range = { from: NOW, to: NOW + 24 * HOUR, size: 2 * HOUR };
      expect(await reads.deliveryBuckets(range)).toEqual([
        { bucket: 0, outcome: 'delivered', count: 1 },
        { bucket: 0, outcome: 'retrying', count: 1 },
        { bucket: 1, outcome: 'finally_failed', count: 1 },
        { bucket: 1, outcome: 'retrying', count: 1 },
      ]);
      expect(await reads.deliveryBuckets({ ...range, webhook_id: 'wh_2' })).toEqual([{ bucket: 1, outcome: 'retrying', count: 1 }]);
      expect(await reads.deliveryBuckets({ from: NOW + 40 * HOUR, to: NOW + 41 * HOUR, size: HOUR })).toEqual([]);
      await storage.close();
    });
  });
}
