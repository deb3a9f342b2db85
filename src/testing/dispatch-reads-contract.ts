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

    it("sums each registration's attempts per bucket, takes its response-time percentiles by nearest rank, and names its latest delivered and failed attempt", async () => {
      const storage = await (await createFixture()).open();
      const reads = dispatchReadsOf(storage)!;
      await storage.insertWebhook(webhook('wh_1'));
      await storage.insertWebhook(webhook('wh_2'));
      await storage.insertEvent(storedEvent('evt_a', NOW), [{ id: 'dlv_a', webhook_id: 'wh_1', next_attempt_at: NOW + 30 * HOUR }]);
      await storage.insertEvent(storedEvent('evt_b', NOW), [{ id: 'dlv_b', webhook_id: 'wh_2', next_attempt_at: NOW + 30 * HOUR }]);
      const job = (id: string, webhookId: string) => ({ delivery: { id, webhook_id: webhookId, event_id: `evt_${id.slice(4)}`, correlation_id: 'corr_reads' }, event: { payload: '{}' } });
      const manual = (delivered: boolean) => afterAttempt({ delivered, manual: true, leaseOwner: 'reads', startedAt: NOW, schedule: [0, 60] });
      // wh_1: nine failures 10 minutes apart taking 10…90 ms, then a delivery taking 100 ms.
      for (let index = 0; index < 9; index++) {
        await storage.recordAttempt('dlv_a', recordingOf(attemptOf(job('dlv_a', 'wh_1'), { attempted_at: NOW + index * 10 * 60_000, response_time_ms: (index + 1) * 10 }), manual(false)));
      }
      const delivered = attemptOf(job('dlv_a', 'wh_1'), { attempted_at: NOW + 95 * 60_000, response_time_ms: 100, response_status: 200, error_kind: null, error_message: null });
      await storage.recordAttempt('dlv_a', recordingOf(delivered, manual(true)));
      await storage.recordAttempt('dlv_b', recordingOf(attemptOf(job('dlv_b', 'wh_2'), { attempted_at: NOW + 3 * HOUR, response_time_ms: 7 }), manual(false)));
      await storage.recordAttempt('dlv_b', recordingOf(attemptOf(job('dlv_b', 'wh_2'), { attempted_at: NOW + 5 * HOUR, response_time_ms: 9_999 }), manual(false)));

      const range = { from: NOW, to: NOW + 4 * HOUR, size: HOUR };
      const byWebhook = (stats: Awaited<ReturnType<typeof reads.attemptStats>>) => [...stats].sort((a, b) => (a.webhook_id < b.webhook_id ? -1 : 1));
      expect(byWebhook(await reads.attemptStats(range))).toEqual([
        {
          webhook_id: 'wh_1',
          buckets: [{ bucket: 0, attempts: 6, delivered: 0 }, { bucket: 1, attempts: 4, delivered: 1 }],
          p50_ms: 50,
          p95_ms: 100,
          last_delivered: { delivery_id: 'dlv_a', attempted_at: NOW + 95 * 60_000 },
          last_failed: { delivery_id: 'dlv_a', attempted_at: NOW + 80 * 60_000 },
        },
        { webhook_id: 'wh_2', buckets: [{ bucket: 3, attempts: 1, delivered: 0 }], p50_ms: 7, p95_ms: 7, last_delivered: null, last_failed: { delivery_id: 'dlv_b', attempted_at: NOW + 3 * HOUR } },
      ]);
      expect((await reads.attemptStats({ ...range, webhook_id: 'wh_2' })).map((stats) => stats.webhook_id)).toEqual(['wh_2']);
      expect(await reads.attemptStats({ from: NOW + 10 * HOUR, to: NOW + 11 * HOUR, size: HOUR })).toEqual([]);
      // The latest attempt of each delivery given (dlv_a's delivery came after its nine failures), none for one without attempts.
      const latest = await reads.latestAnswers(['dlv_b', 'dlv_a', 'dlv_never']);
      expect([...latest].sort((a, b) => (a.delivery_id < b.delivery_id ? -1 : 1))).toEqual([
        { delivery_id: 'dlv_a', response_status: 200, error_kind: null },
        { delivery_id: 'dlv_b', response_status: 500, error_kind: 'http_status' },
      ]);
      expect(await reads.latestAnswers([])).toEqual([]);
      await storage.close();
    });
  });
}
