import { recordingOf } from '../dispatcher/attempt-recording.js';
import { afterAttempt } from '../dispatcher/schedule.js';
import type { ClaimRequest, DeliveryJob, DispatchStore } from '../ports/dispatch-store.js';
import type { ContractTestApi } from './contract-api.js';
import { attemptOf, closingStores, NOW, storedEvent, webhook, type DispatchStoreFixture } from './dispatch-store-contract.js';

/** Claims happen at CLAIM_AT; their leases last a minute from then. */
const CLAIM_AT = NOW + 1_000_000;
const LEASE_MS = 60_000;
const ids = (jobs: DeliveryJob[]) => jobs.map((job) => job.delivery.id);
const countBy = (jobs: DeliveryJob[]) => jobs.reduce<Record<string, number>>((counts, job) => ({ ...counts, [job.webhook.id]: (counts[job.webhook.id] ?? 0) + 1 }), {});

/** `events` events, each with one delivery to every webhook in `webhookIds`, due at NOW + i (so earlier events come first). */
async function queue(storage: DispatchStore, webhookIds: string[], events: number, from = 0): Promise<void> {
  for (let e = from; e < from + events; e++) {
    await storage.insertEvent(
      storedEvent(`evt_${e}`, NOW + e),
      webhookIds.map((id) => ({ id: `dlv_${e}_${id}`, webhook_id: id, next_attempt_at: NOW + e })),
    );
  }
}

/** Records a failed (or delivered) automatic attempt of `job` by `owner`, with a policy that disables after `disableAfterMs`. */
function recordAttempt(storage: DispatchStore, job: DeliveryJob, owner: string, { delivered = false, at = NOW, disableAfterMs = null as number | null } = {}) {
  const attempt = attemptOf(job, { attempted_at: at, ...(delivered ? { response_status: 204, error_kind: null, error_message: null } : {}) });
  const transition = afterAttempt({ delivered, manual: false, leaseOwner: owner, startedAt: at, schedule: [0, 60] });
  return storage.recordAttempt(job.delivery.id, recordingOf(attempt, transition, { disableAfterMs, warnAt: [0.5] }));
}

/**
 * The claim's fairness, caps and rate limits, the health an attempt records, and skipped events:
 * the part of the DispatchStore contract that keeps one receiver from holding up the others,
 * stated as cases: the registration with the fewest attempts in flight first, each one's
 * earliest due first, the caps over every connection, slow start and rate limits. The package's
 * own backends share one rule for it (src/ports/claim-plan.ts); a store of yours computes the
 * same, in SQL or in code, and these cases check that it does.
 *
 * @example
 * describeFairClaims({ describe, it, expect, beforeEach, afterEach }, 'mysqlDispatchStore', async () => {
 *   const database = await freshMysqlDatabase();
 *   return { open: () => mysqlDispatchStore(database.url) };
 * });
 */
export function describeFairClaims(test: ContractTestApi, name: string, createFixture: () => Promise<DispatchStoreFixture> | DispatchStoreFixture): void {
  const { describe, it, expect } = test;
  describe(`${name}: fair claims, caps, health and skipped events`, () => {
    const create = closingStores(test, createFixture);
    const claim = (storage: DispatchStore, { owner = 'w1', now = CLAIM_AT, ...request }: Partial<ClaimRequest> & { owner?: string }) =>
      storage.claimDue({ now, limit: 10, lease: { owner, until: now + LEASE_MS }, ...request });

    it('a registration with many due deliveries cannot fill the claim ahead of one with few: the fewest in flight first, each earliest first', async () => {
      const storage = await (await create()).open();
      await storage.insertWebhook(webhook('wh_big'));
      await storage.insertWebhook(webhook('wh_small'));
      await queue(storage, ['wh_big'], 40);
      await queue(storage, ['wh_small'], 3, 100);
      const jobs = await claim(storage, { limit: 4 });
      expect(countBy(jobs)).toEqual({ wh_big: 2, wh_small: 2 });
      expect(ids(jobs).filter((id) => id.endsWith('wh_big'))).toEqual(['dlv_0_wh_big', 'dlv_1_wh_big']);
      // wh_big has 2 in flight, wh_small 2: the next claim alternates again, and wh_small runs out first.
      expect(countBy(await claim(storage, { limit: 4 }))).toEqual({ wh_big: 3, wh_small: 1 });
    });

    it('caps attempts in flight per registration across connections (another process), and a failing one at its own cap', async () => {
      const fixture = await create();
      const [first, second] = await Promise.all([fixture.open(), fixture.open()]);
      await first.insertWebhook(webhook('wh_a'));
      await first.insertWebhook(webhook('wh_failing', { failure_streak: 3, failing_since: NOW, last_failure_at: NOW }));
      await queue(first, ['wh_a', 'wh_failing'], 20);
      const caps = { maxInFlight: 3, maxInFlightWhileFailing: 1 };
      const [one, two] = await Promise.all([claim(first, { ...caps, owner: 'w1' }), claim(second, { ...caps, owner: 'w2' })]);
      expect(countBy([...one, ...two])).toEqual({ wh_a: 3, wh_failing: 1 });
      expect(await claim(second, { ...caps, owner: 'w2' })).toEqual([]);

      // An attempt recorded frees its slot; a lease that ran out frees its slot too.
      const recorded = [...one, ...two].find((job) => job.webhook.id === 'wh_a')!;
      await recordAttempt(first, recorded, recorded.delivery.lease_owner!, { delivered: true });
      expect(countBy(await claim(second, { ...caps, owner: 'w2' }))).toEqual({ wh_a: 1 });
      expect(countBy(await claim(second, { ...caps, owner: 'w2', now: CLAIM_AT + LEASE_MS + 1 }))).toEqual({ wh_a: 3, wh_failing: 1 });
    });

    it('slow start: a registration that has not failed gets its initial slots plus one per delivered attempt in a row, up to its cap', async () => {
      const storage = await (await create()).open();
      await storage.insertWebhook(webhook('wh_new'));
      await storage.insertWebhook(webhook('wh_proven', { delivered_streak: 3 }));
      await queue(storage, ['wh_new', 'wh_proven'], 20);
      const caps = { maxInFlight: 4, initialInFlight: 2 };
      const jobs = await claim(storage, caps);
      expect(countBy(jobs)).toEqual({ wh_new: 2, wh_proven: 4 });
      // Each delivered attempt counts one more (up to the cap the dispatcher gives as countDeliveredUpTo).
      const attempt = attemptOf(jobs[0]!, { response_status: 204, error_kind: null, error_message: null });
      const recorded = await storage.recordAttempt(
        jobs[0]!.delivery.id,
        recordingOf(attempt, afterAttempt({ delivered: true, manual: false, leaseOwner: 'w1', startedAt: NOW, schedule: [0] }), { disableAfterMs: null, warnAt: [], countDeliveredUpTo: 4 }),
      );
      expect(recorded.health.delivered_streak).toBe(1);
      expect(await storage.getWebhook('wh_new')).toMatchObject({ delivered_streak: 1 });
      expect(countBy(await claim(storage, caps))).toEqual({ wh_new: 2 });
    });

    it('a rate limit delays work instead of holding a slot: a burst of one second, then one per interval, over every connection', async () => {
      const fixture = await create();
      const [first, second] = await Promise.all([fixture.open(), fixture.open()]);
      await first.insertWebhook(webhook('wh_limited', { rate_limit: 2 }));
      await first.insertWebhook(webhook('wh_free'));
      await queue(first, ['wh_limited', 'wh_free'], 10);
      const now = CLAIM_AT;
      expect(countBy(await claim(first, { now, limit: 6 }))).toEqual({ wh_limited: 2, wh_free: 4 });
      expect(countBy(await claim(second, { now, limit: 6 }))).toEqual({ wh_free: 6 });
      expect(await claim(second, { now: now + 499 })).toEqual([]);
      expect(countBy(await claim(second, { now: now + 500 }))).toEqual({ wh_limited: 1 });
      expect(countBy(await claim(first, { now: now + 1_000 }))).toEqual({ wh_limited: 1 });
    });

    it('records the health with each attempt: the streak, and a disable that takes the registration\'s deliveries out of the queue', async () => {
      const storage = await (await create()).open();
      await storage.insertWebhook(webhook('wh_1'));
      await queue(storage, ['wh_1'], 3);
      const [job] = await claim(storage, { limit: 1 });
      const first = await recordAttempt(storage, job!, 'w1', { disableAfterMs: 1_000 });
      expect(first.health).toMatchObject({ failure_streak: 1, failing_since: NOW, last_failure_at: NOW, status: 'active' });
      expect(await storage.getWebhook('wh_1')).toMatchObject({ failure_streak: 1, failing_since: NOW });

      const [next] = await claim(storage, { limit: 1 });
      const second = await recordAttempt(storage, next!, 'w1', { at: NOW + 1_000, disableAfterMs: 1_000 });
      expect(second.alerts).toEqual([{ kind: 'disabled' }]);
      expect(await storage.getWebhook('wh_1')).toMatchObject({ status: 'disabled', disabled_reason: 'failing', disabled_at: NOW + 1_000, failure_streak: 2 });
      expect(await storage.nextDueAt()).toBeNull();
      expect(await claim(storage, {})).toEqual([]);
      expect(await storage.queueStats(CLAIM_AT)).toMatchObject({ paused: 3, due: 0, in_flight: 0 });
    });

    it('records events for a disabled registration as skipped; a replay queues each once, and a second replay nothing', async () => {
      const fixture = await create();
      const storage = await fixture.open();
      await storage.insertWebhook(webhook('wh_on'));
      await storage.insertWebhook(webhook('wh_off', { status: 'disabled', disabled_at: NOW, disabled_reason: 'manual' }));
      for (const id of ['evt_1', 'evt_2']) await storage.insertEvent(storedEvent(id), [{ id: `dlv_${id}`, webhook_id: 'wh_on', next_attempt_at: NOW }], ['wh_off']);
      expect(await storage.listSkipped('wh_off')).toEqual(['evt_1', 'evt_2']);
      expect(await storage.webhookActivity(NOW)).toEqual(new Map([['wh_off', { in_flight: 0, skipped_events: 2 }]]));

      await storage.updateWebhook('wh_off', { status: 'active', disabled_at: null, disabled_reason: null }, NOW);
      const replay = ['evt_1', 'evt_2'].map((eventId) => ({ id: `dlv_replay_${eventId}`, webhook_id: 'wh_off', event_id: eventId, next_attempt_at: NOW }));
      const [once, twice] = await Promise.all([storage.replaySkipped('wh_off', replay, NOW), (await fixture.open()).replaySkipped('wh_off', replay.map((d) => ({ ...d, id: `${d.id}_again` })), NOW)]);
      expect(once + twice).toBe(2);
      expect(await storage.listSkipped('wh_off')).toEqual([]);
      expect(await storage.countDeliveries({ status: 'retrying' })).toBe(4);
      const jobs = await claim(storage, {});
      expect(countBy(jobs)).toEqual({ wh_on: 2, wh_off: 2 });
      expect(jobs.filter((job) => job.webhook.id === 'wh_off').map((job) => job.event.id)).toEqual(['evt_1', 'evt_2']);
      expect(await storage.queueStats(CLAIM_AT)).toMatchObject({ in_flight: 4, due: 0 });
    });
  });
}
