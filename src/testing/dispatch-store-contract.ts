import { recordingOf } from '../dispatcher/attempt-recording.js';
import { afterAttempt, type DeliveryTransition } from '../dispatcher/schedule.js';
import { HEALTHY } from '../dispatcher/webhook-health.js';
import { sampleEvent } from '../events/sample-event.js';
import type { DeliveryCountQuery, DeliveryJob, DispatchStore, NewAttempt, RecordedAttempt, StoredWebhook } from '../ports/dispatch-store.js';
import type { ContractTestApi } from './contract-api.js';

/**
 * One database for one case, as a DispatchStore implementation provides it. `open()` returns
 * another store on the same database each time — another process, as far as the store can
 * tell. The suite closes every store it opened when the case ends.
 */
export interface DispatchStoreFixture {
  open(): Promise<DispatchStore> | DispatchStore;
}

/** The time the cases start at. */
export const NOW = Date.UTC(2026, 10, 22, 9, 0, 0);

export async function seed(storage: DispatchStore, { webhooks, events, url, now }: { webhooks: number; events: number; url: string; now: number }) {
  const ids = Array.from({ length: webhooks }, (_, i) => `wh_${i}`);
  for (const id of ids) {
    await storage.insertWebhook(webhook(id, { url, events: ['*'], secret: 'whsec_seed', created_at: now, updated_at: now }));
  }
  for (let e = 0; e < events; e++) {
    const event = sampleEvent('invoice.paid', { id: `evt_${e}` });
    await storage.insertEvent(
      { id: event.id, type: event.type, payload: JSON.stringify(event), correlation_id: event.correlation_id, test: false, created_at: now },
      ids.map((webhookId) => ({ id: `dlv_${e}_${webhookId}`, webhook_id: webhookId, next_attempt_at: now })),
    );
  }
}

export function webhook(id: string, overrides: Partial<StoredWebhook> = {}): StoredWebhook {
  return {
    id,
    business_id: null,
    scope: 'all',
    url: 'https://receiver.example/hook',
    events: ['invoice.*'],
    headers: {},
    secret: 'whsec_contract',
    rate_limit: null,
    scheme: 'svc',
    algorithm: 'hmac-sha256',
    public_key: null,
    previous_secret: null,
    previous_secret_expires_at: null,
    ...HEALTHY,
    created_at: NOW,
    updated_at: NOW,
    ...overrides,
  };
}

export function storedEvent(id: string, createdAt = NOW) {
  const event = sampleEvent('invoice.paid', { id });
  return { id, type: event.type, payload: JSON.stringify(event), correlation_id: event.correlation_id, test: false, created_at: createdAt };
}

export function attemptOf(job: { delivery: { id: string; webhook_id: string; event_id: string; correlation_id: string }; event: { payload: string } }, fields: Partial<NewAttempt> = {}): NewAttempt {
  return {
    id: `att_${Math.random().toString(36).slice(2)}`,
    delivery_id: job.delivery.id,
    webhook_id: job.delivery.webhook_id,
    url: 'https://receiver.example/hook',
    event_id: job.delivery.event_id,
    event_type: 'invoice.paid',
    attempted_at: NOW,
    response_status: 500,
    response_time_ms: 12,
    receiver_ip: '203.0.113.7',
    correlation_id: job.delivery.correlation_id,
    response_body: 'no',
    response_body_truncated: false,
    error_kind: 'http_status',
    error_message: 'The receiver answered 500',
    manual: false,
    test: false,
    request_payload: job.event.payload,
    ...fields,
  };
}

/** Records `attempt` of `job`'s delivery as the dispatcher does: numbered and merged by the dispatcher, stored by the store. */
function record(storage: DispatchStore, attempt: NewAttempt, transition: DeliveryTransition): Promise<RecordedAttempt> {
  return storage.recordAttempt(attempt.delivery_id, recordingOf(attempt, transition));
}

const MINUTE = 60_000;

/**
 * The DispatchStore contract, written once and run against every implementation (SQLite,
 * PostgreSQL, and yours): registrations, events stored once, attempts numbered and recorded
 * under the delivery's lock, the delivery log's filters, leases that two claims never share.
 * `create` returns a fixture on a fresh, empty database. The dispatcher's decisions (numbers,
 * next states) come from the package: a store only keeps them.
 *
 * @example
 * describeDispatchStore({ describe, it, expect, beforeEach, afterEach }, 'mysqlDispatchStore', async () => {
 *   const database = await freshMysqlDatabase();
 *   return { open: () => mysqlDispatchStore(database.url) };
 * });
 */
export function describeDispatchStore(test: ContractTestApi, name: string, createFixture: () => Promise<DispatchStoreFixture> | DispatchStoreFixture): void {
  const { describe, it, expect } = test;
  describe(`${name}: the DispatchStore contract`, () => {
    const create = closingStores(test, createFixture);
    describe('registrations', () => {
      it('stores, lists oldest first, changes only what is given, and deletes (ending pending deliveries, keeping the log)', async () => {
        const storage = await (await create()).open();
        await storage.insertWebhook(webhook('wh_b', { created_at: NOW + 1, headers: { 'x-b': '2', 'x-a': '1' } }));
        await storage.insertWebhook(webhook('wh_a'));
        expect((await storage.listWebhooks()).map((w) => w.id)).toEqual(['wh_a', 'wh_b']);
        // Header order is kept as given: it is the order they are sent in.
        expect(Object.keys((await storage.getWebhook('wh_b'))!.headers)).toEqual(['x-b', 'x-a']);

        const updated = await storage.updateWebhook('wh_a', { status: 'disabled', events: ['*'] }, NOW + 5);
        expect(updated).toEqual(webhook('wh_a', { status: 'disabled', events: ['*'], updated_at: NOW + 5 }));
        expect(await storage.getWebhook('wh_a')).toEqual(updated);
        expect(await storage.updateWebhook('wh_missing', { status: 'active' }, NOW)).toBeUndefined();

        await storage.insertEvent(storedEvent('evt_1'), [{ id: 'dlv_1', webhook_id: 'wh_b', next_attempt_at: NOW }]);
        expect(await storage.deleteWebhook('wh_b', NOW + 9)).toBe(true);
        expect(await storage.deleteWebhook('wh_b', NOW + 10)).toBe(false);
        expect(await storage.getWebhook('wh_b')).toBeUndefined();
        expect(await storage.updateWebhook('wh_b', { status: 'active' }, NOW + 11)).toBeUndefined();
        expect((await storage.listWebhooks()).map((w) => w.id)).toEqual(['wh_a']);
        expect(await storage.getDelivery('dlv_1')).toMatchObject({ status: 'finally_failed', next_attempt_at: null, lease_owner: null, updated_at: NOW + 9 });
      });
      it("finds an event's registrations by its business: its own, and those of platform or no owner; never another business's or a deleted one", async () => {
        const storage = await (await create()).open();
        await storage.insertWebhook(webhook('wh_a1', { business_id: 'biz_a', scope: 'business' }));
        await storage.insertWebhook(webhook('wh_b1', { business_id: 'biz_b', scope: 'business', created_at: NOW + 1 }));
        await storage.insertWebhook(webhook('wh_p', { scope: 'platform', created_at: NOW + 2 }));
        await storage.insertWebhook(webhook('wh_all', { created_at: NOW + 3 }));
        await storage.insertWebhook(webhook('wh_a2', { business_id: 'biz_a', scope: 'business', created_at: NOW + 4 }));
        await storage.insertWebhook(webhook('wh_a3', { business_id: 'biz_a', scope: 'business', created_at: NOW + 5 }));
        await storage.deleteWebhook('wh_a3', NOW + 6);
        expect((await storage.webhooksOfBusiness('biz_a')).map((w) => w.id)).toEqual(['wh_a1', 'wh_p', 'wh_all', 'wh_a2']);
        expect((await storage.webhooksOfBusiness('biz_b')).map((w) => w.id)).toEqual(['wh_b1', 'wh_p', 'wh_all']);
        expect((await storage.webhooksOfBusiness('biz_none')).map((w) => w.id)).toEqual(['wh_p', 'wh_all']);
        expect((await storage.webhooksOfBusiness('biz_a'))[0]).toEqual(webhook('wh_a1', { business_id: 'biz_a', scope: 'business' }));
      });

      it('pages registrations in insertion order by business and status; a page boundary holds while more are added', async () => {
        const storage = await (await create()).open();
        for (let i = 0; i < 5; i++) await storage.insertWebhook(webhook(`wh_${i}`, { business_id: i % 2 === 0 ? 'biz_a' : 'biz_b', scope: 'business', status: i === 4 ? 'disabled' : 'active' }));
        const first = await storage.pageWebhooks({ business_id: 'biz_a', after: 0, limit: 2 });
        expect(first.webhooks.map((w) => w.id)).toEqual(['wh_0', 'wh_2']);
        expect(first.next).not.toBeNull();
        await storage.insertWebhook(webhook('wh_5', { business_id: 'biz_a', scope: 'business' }));
        const second = await storage.pageWebhooks({ business_id: 'biz_a', after: first.next!, limit: 2 });
        expect(second.webhooks.map((w) => w.id)).toEqual(['wh_4', 'wh_5']);
        expect(second.next).toBeNull();
        expect((await storage.pageWebhooks({ business_id: 'biz_a', status: 'active', after: 0, limit: 10 })).webhooks.map((w) => w.id)).toEqual(['wh_0', 'wh_2', 'wh_5']);
        expect((await storage.pageWebhooks({ after: 0, limit: 10 })).webhooks).toHaveLength(6);
      });

      it('counts registrations per state (deleted ones not), as listing them would', async () => {
        const storage = await (await create()).open();
        if (!storage.countWebhooks) throw new Error('the store does not count registrations');
        const count = () => storage.countWebhooks!();
        expect(await count()).toEqual({ active: 0, failing: 0, disabled: 0 });
        await storage.insertWebhook(webhook('wh_ok'));
        await storage.insertWebhook(webhook('wh_ok2'));
        await storage.insertWebhook(webhook('wh_failing', { failure_streak: 3 }));
        await storage.insertWebhook(webhook('wh_off', { status: 'disabled', failure_streak: 9 }));
        await storage.insertWebhook(webhook('wh_gone'));
        await storage.deleteWebhook('wh_gone', 1);
        expect(await count()).toEqual({ active: 2, failing: 1, disabled: 1 });
      });
    });

    describe('events', () => {
      it('stores an event once: the same id again inserts nothing and returns the stored event', async () => {
        const storage = await (await create()).open();
        await storage.insertWebhook(webhook('wh_1'));
        const first = storedEvent('evt_1');
        expect(await storage.insertEvent(first, [{ id: 'dlv_1', webhook_id: 'wh_1', next_attempt_at: NOW }])).toEqual({ inserted: true, deliveries: 1 });
        const again = await storage.insertEvent({ ...first, created_at: NOW + 1 }, [{ id: 'dlv_2', webhook_id: 'wh_1', next_attempt_at: NOW }]);
        expect(again).toEqual({ inserted: false, existing: first });
        expect(await storage.getDelivery('dlv_2')).toBeUndefined();
      });

      it('skips deliveries to a deleted webhook, and a delivery leased at creation is not claimed until its lease ends', async () => {
        const storage = await (await create()).open();
        await storage.insertWebhook(webhook('wh_live'));
        await storage.insertWebhook(webhook('wh_gone'));
        await storage.deleteWebhook('wh_gone', NOW);
        const event = storedEvent('evt_1');
        const result = await storage.insertEvent(event, [
          { id: 'dlv_live', webhook_id: 'wh_live', next_attempt_at: NOW, lease: { owner: 'sender', until: NOW + 1_000 } },
          { id: 'dlv_gone', webhook_id: 'wh_gone', next_attempt_at: NOW },
        ]);
        expect(result).toEqual({ inserted: true, deliveries: 1 });
        expect(await storage.getDelivery('dlv_gone')).toBeUndefined();
        expect(await storage.getDelivery('dlv_live')).toMatchObject({ status: 'retrying', attempt_count: 0, next_attempt_at: NOW + 1_000, lease_owner: 'sender', lease_until: NOW + 1_000, created_at: NOW });
        expect(await storage.claimDue({ now: NOW + 999, limit: 10, lease: { owner: 'w', until: NOW + 5_000 } })).toEqual([]);
        expect(await storage.nextDueAt()).toBe(NOW + 1_000);
        const [job] = await storage.claimDue({ now: NOW + 1_000, limit: 10, lease: { owner: 'w', until: NOW + 5_000 } });
        expect(job).toMatchObject({
          delivery: { id: 'dlv_live', lease_owner: 'w', lease_until: NOW + 5_000, next_attempt_at: NOW + 5_000 },
          event,
          webhook: { id: 'wh_live', url: 'https://receiver.example/hook', secret: 'whsec_contract', headers: {} },
        });
        expect(await storage.loadJob('dlv_live')).toEqual(job);
        expect(await storage.loadJob('dlv_missing')).toBeUndefined();
      });

      it('gives a job what it is signed with: the scheme and a rotation grace\'s previous secret', async () => {
        const storage = await (await create()).open();
        const far = Date.UTC(2262, 3, 11, 23, 47, 16, 854);
        await storage.insertWebhook(webhook('wh_sw', { scheme: 'both', secret: 'whsec_new', previous_secret: 'whsec_old', previous_secret_expires_at: far }));
        const event = storedEvent('evt_sw');
        await storage.insertEvent(event, [{ id: 'dlv_sw', webhook_id: 'wh_sw', next_attempt_at: NOW }]);
        const [job] = await storage.claimDue({ now: NOW, limit: 10, lease: { owner: 'w', until: NOW + 5_000 } });
        expect(job?.webhook).toEqual({ id: 'wh_sw', url: 'https://receiver.example/hook', secret: 'whsec_new', headers: {}, scheme: 'both', previous_secret: 'whsec_old', previous_secret_expires_at: far });
        expect((await storage.loadJob('dlv_sw'))?.webhook).toEqual(job?.webhook);
        const changed = await storage.updateWebhook('wh_sw', { scheme: 'standard-webhooks', previous_secret: null, previous_secret_expires_at: null }, NOW + 1);
        expect(changed).toMatchObject({ scheme: 'standard-webhooks', algorithm: 'hmac-sha256', public_key: null, previous_secret: null, previous_secret_expires_at: null });
        expect(await storage.getWebhook('wh_sw')).toEqual(changed);
      });

      it('keeps times and text exactly: far-future milliseconds, every Unicode character, a NUL in an answer', async () => {
        const storage = await (await create()).open();
        const far = Date.UTC(2262, 3, 11, 23, 47, 16, 854); // beyond 2^53 nanoseconds, far below 2^53 ms
        await storage.insertWebhook(webhook('wh_1', { created_at: far, updated_at: far, headers: { 'x-note': 'Grüße 💶' } }));
        const event = { ...storedEvent('evt_ü'), payload: '{"id":"evt_ü","memo":"Rechnung № 7 — 💶 \\u0000"}', created_at: far };
        await storage.insertEvent(event, [{ id: 'dlv_1', webhook_id: 'wh_1', next_attempt_at: far }]);
        const [job] = await storage.claimDue({ now: far, limit: 1, lease: { owner: 'w', until: far + 1 } });
        expect(job!.event).toEqual(event);
        expect(job!.webhook.headers).toEqual({ 'x-note': 'Grüße 💶' });
        const body = 'bad\u0000answer \ud83d\udcb6 \u0001 end';
        const recorded = await record(
          storage,
          attemptOf(job!, { attempted_at: far, response_body: body, error_message: 'answered \u0000' }),
          afterAttempt({ delivered: false, manual: false, leaseOwner: 'w', startedAt: far, schedule: [0, 60] }),
        );
        expect(recorded.delivery).toMatchObject({ next_attempt_at: far + 60_000, automatic_attempt_count: 1 });
        const [stored] = await storage.listAttempts('dlv_1');
        expect(stored).toEqual({ ...recorded.attempt, attempt_number: 1 });
        expect(stored!.response_body).toBe(body);
        expect(stored!.attempted_at).toBe(far);
        expect((await storage.getDelivery('dlv_1'))!.next_attempt_at).toBe(far + 60_000);
      });
    });

    describe('the events feed', () => {
      const ofBusiness = (id: string, type: 'invoice.paid' | 'payment.received' | 'customer.created', business: string, createdAt: number) => {
        const event = { ...sampleEvent(type, { id, now: NOW }), business_id: business, correlation_id: `cor_${id}` };
        return { id, type, payload: JSON.stringify(event), correlation_id: event.correlation_id, test: false, created_at: createdAt };
      };

      it('lists one business\'s events in the order they were recorded, by type, time and position, with counts', async () => {
        const storage = await (await create()).open();
        if (!storage.listEvents || !storage.countEvents || !storage.getEvent) throw new Error('the store offers no events feed');
        // Recorded in this order; created_at is not in it (a clock that stepped back): the order is the store's.
        await storage.insertEvent(ofBusiness('evt_a1', 'invoice.paid', 'biz_a', NOW + 20), []);
        await storage.insertEvent(ofBusiness('evt_b1', 'invoice.paid', 'biz_b', NOW + 5), []);
        await storage.insertEvent(ofBusiness('evt_a2', 'payment.received', 'biz_a', NOW + 10), []);
        await storage.insertEvent(ofBusiness('evt_a3', 'customer.created', 'biz_a', NOW + 30), []);
        const ids = async (query: Parameters<NonNullable<DispatchStore['listEvents']>>[0]) => (await storage.listEvents!(query)).map((event) => event.id);

        expect(await ids({ business_id: 'biz_a', limit: 10 })).toEqual(['evt_a1', 'evt_a2', 'evt_a3']);
        expect(await ids({ business_id: 'biz_b', limit: 10 })).toEqual(['evt_b1']);
        expect(await ids({ business_id: 'biz_none', limit: 10 })).toEqual([]);
        expect(await ids({ business_id: 'biz_a', types: ['invoice.paid', 'customer.created'], limit: 10 })).toEqual(['evt_a1', 'evt_a3']);
        expect(await ids({ business_id: 'biz_a', created_after: NOW + 10, created_before: NOW + 30, limit: 10 })).toEqual(['evt_a1', 'evt_a2']);
        expect(await ids({ business_id: 'biz_a', limit: 1, offset: 1 })).toEqual(['evt_a2']);
        expect(await storage.countEvents({ business_id: 'biz_a' })).toBe(3);
        expect(await storage.countEvents({ business_id: 'biz_a', types: ['payment.received'] })).toBe(1);
        expect(await storage.countEvents({ business_id: 'biz_a', created_after: NOW + 21 })).toBe(1);

        const [first, second] = await storage.listEvents({ business_id: 'biz_a', limit: 2 });
        expect(first).toEqual({ ...ofBusiness('evt_a1', 'invoice.paid', 'biz_a', NOW + 20), business_id: 'biz_a', seq: expect.any(Number) });
        expect(second!.seq).toBeGreaterThan(first!.seq);
        expect(await ids({ business_id: 'biz_a', after_seq: first!.seq, limit: 10 })).toEqual(['evt_a2', 'evt_a3']);
        // An event recorded later comes after every position read so far.
        await storage.insertEvent(ofBusiness('evt_a4', 'invoice.paid', 'biz_a', NOW), []);
        expect(await ids({ business_id: 'biz_a', after_seq: second!.seq, limit: 10 })).toEqual(['evt_a3', 'evt_a4']);
        expect(await storage.getEvent('evt_a4')).toEqual({ ...ofBusiness('evt_a4', 'invoice.paid', 'biz_a', NOW), business_id: 'biz_a', seq: expect.any(Number) });
        expect(await storage.getEvent('evt_missing')).toBeUndefined();
      });

      it('keeps an event with no delivery (no webhook subscribed) in the feed', async () => {
        const storage = await (await create()).open();
        await storage.insertWebhook(webhook('wh_1'));
        await storage.insertEvent(ofBusiness('evt_1', 'invoice.paid', 'biz_a', NOW), [{ id: 'dlv_1', webhook_id: 'wh_1', next_attempt_at: NOW }]);
        await storage.insertEvent(ofBusiness('evt_2', 'customer.created', 'biz_a', NOW + 1), []);
        expect((await storage.listEvents!({ business_id: 'biz_a', limit: 10 })).map((event) => event.id)).toEqual(['evt_1', 'evt_2']);
      });
    });

    describe('attempts', () => {
      it('numbers attempts, applies the transition to the row as it is, and a worker that lost its lease changes nothing', async () => {
        const storage = await (await create()).open();
        await storage.insertWebhook(webhook('wh_1'));
        await storage.insertEvent(storedEvent('evt_1'), [{ id: 'dlv_1', webhook_id: 'wh_1', next_attempt_at: NOW }]);
        const [stale] = await storage.claimDue({ now: NOW, limit: 1, lease: { owner: 'slow', until: NOW + 100 } });
        const [job] = await storage.claimDue({ now: NOW + 100, limit: 1, lease: { owner: 'fast', until: NOW + 200 } });
        expect(job!.delivery.id).toBe('dlv_1');

        const late = await record(
          storage,
          attemptOf(stale!, { attempted_at: NOW + 150 }),
          afterAttempt({ delivered: false, manual: false, leaseOwner: 'slow', startedAt: NOW, schedule: [0, 60] }),
        );
        expect(late.attempt.attempt_number).toBe(1);
        expect(late.delivery).toMatchObject({ status: 'retrying', attempt_count: 1, automatic_attempt_count: 0, lease_owner: 'fast', lease_until: NOW + 200 });

        const ok = await record(
          storage,
          attemptOf(job!, { attempted_at: NOW + 160, response_status: 204, error_kind: null, error_message: null }),
          afterAttempt({ delivered: true, manual: false, leaseOwner: 'fast', startedAt: NOW + 100, schedule: [0, 60] }),
        );
        expect(ok.attempt.attempt_number).toBe(2);
        expect(ok.delivery).toMatchObject({ status: 'delivered', attempt_count: 2, automatic_attempt_count: 1, next_attempt_at: null, lease_owner: null });
        expect(await storage.getDelivery('dlv_1')).toEqual(ok.delivery);
        expect((await storage.listAttempts('dlv_1')).map((a) => [a.attempt_number, a.attempted_at])).toEqual([
          [1, NOW + 150],
          [2, NOW + 160],
        ]);
        expect(await storage.nextDueAt()).toBeNull();
      });

      it('records attempts finishing together each in turn: a manual and an automatic one of one delivery get numbers 1 and 2', async () => {
        const storage = await (await create()).open();
        await storage.insertWebhook(webhook('wh_1'));
        await storage.insertEvent(storedEvent('evt_1'), [{ id: 'dlv_1', webhook_id: 'wh_1', next_attempt_at: NOW }]);
        await storage.insertEvent(storedEvent('evt_2'), [{ id: 'dlv_2', webhook_id: 'wh_1', next_attempt_at: NOW }]);
        const [job, other] = await storage.claimDue({ now: NOW, limit: 2, lease: { owner: 'w', until: NOW + 100 } });
        const failed = (startedAt: number) => afterAttempt({ delivered: false, manual: false, leaseOwner: 'w', startedAt, schedule: [0, 60] });
        const [automatic, manual, vanished, second] = await Promise.allSettled([
          record(storage, attemptOf(job!, { attempted_at: NOW + 10 }), failed(NOW)),
          record(storage, attemptOf(job!, { attempted_at: NOW + 11, manual: true }), afterAttempt({ delivered: false, manual: true, leaseOwner: 'x', startedAt: NOW + 11, schedule: [0, 60] })),
          record(storage, attemptOf({ ...job!, delivery: { ...job!.delivery, id: 'dlv_missing' } }), failed(NOW)),
          record(storage, attemptOf(other!, { attempted_at: NOW + 12 }), failed(NOW)),
        ]);
        expect(vanished.status).toBe('rejected');
        expect([automatic, manual, second].map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
        expect((await storage.listAttempts('dlv_1')).map((a) => [a.attempt_number, a.manual, a.attempted_at])).toEqual([
          [1, false, NOW + 10],
          [2, true, NOW + 11],
        ]);
        expect(await storage.getDelivery('dlv_1')).toMatchObject({ attempt_count: 2, automatic_attempt_count: 1, next_attempt_at: NOW + 60_000, lease_owner: null });
        expect(await storage.getDelivery('dlv_2')).toMatchObject({ attempt_count: 1, automatic_attempt_count: 1 });
      });

      it('a manual success recorded first wins: the lease holder\'s failure recorded in the same batch leaves it delivered', async () => {
        const storage = await (await create()).open();
        await storage.insertWebhook(webhook('wh_1'));
        await storage.insertEvent(storedEvent('evt_1'), [{ id: 'dlv_1', webhook_id: 'wh_1', next_attempt_at: NOW }]);
        const [job] = await storage.claimDue({ now: NOW, limit: 1, lease: { owner: 'w', until: NOW + 100 } });
        const succeeded = { attempted_at: NOW + 5, manual: true, response_status: 200, error_kind: null, error_message: null };
        const [manual, automatic] = await Promise.all([
          record(storage, attemptOf(job!, succeeded), afterAttempt({ delivered: true, manual: true, leaseOwner: 'x', startedAt: NOW + 5, schedule: [0, 60] })),
          record(storage, attemptOf(job!, { attempted_at: NOW + 6 }), afterAttempt({ delivered: false, manual: false, leaseOwner: 'w', startedAt: NOW, schedule: [0, 60] })),
        ]);
        expect([manual.attempt.attempt_number, automatic.attempt.attempt_number]).toEqual([1, 2]);
        expect(automatic.delivery).toMatchObject({ status: 'delivered', attempt_count: 2, next_attempt_at: null, lease_owner: null });
        expect(await storage.getDelivery('dlv_1')).toEqual(automatic.delivery);
        expect(await storage.nextDueAt()).toBeNull();
      });

      it('lists deliveries newest first with filters and paging, and exports attempts in order after a cursor', async () => {
        const storage = await (await create()).open();
        await storage.insertWebhook(webhook('wh_1'));
        await storage.insertWebhook(webhook('wh_2'));
        for (let i = 0; i < 4; i++) {
          await storage.insertEvent(storedEvent(`evt_${i}`, NOW + i * MINUTE), [
            { id: `dlv_${i}_1`, webhook_id: 'wh_1', next_attempt_at: NOW },
            { id: `dlv_${i}_2`, webhook_id: 'wh_2', next_attempt_at: NOW },
          ]);
        }
        const jobs = await storage.claimDue({ now: NOW, limit: 100, lease: { owner: 'w', until: NOW + 1 } });
        expect(jobs).toHaveLength(8);
        for (const [i, job] of jobs.entries()) {
          await record(
            storage,
            attemptOf(job, { attempted_at: NOW + i, ...(job.delivery.webhook_id === 'wh_1' ? { response_status: 204, error_kind: null } : {}) }),
            afterAttempt({ delivered: job.delivery.webhook_id === 'wh_1', manual: false, leaseOwner: 'w', startedAt: NOW, schedule: [0, 60] }),
          );
        }
        const ids = async (query: Partial<Parameters<DispatchStore['listDeliveries']>[0]>) =>
          (await storage.listDeliveries({ limit: 100, offset: 0, ...query })).map((d) => d.id);
        expect(await ids({})).toEqual(['dlv_3_2', 'dlv_3_1', 'dlv_2_2', 'dlv_2_1', 'dlv_1_2', 'dlv_1_1', 'dlv_0_2', 'dlv_0_1']);
        expect(await ids({ limit: 2, offset: 1 })).toEqual(['dlv_3_1', 'dlv_2_2']);
        expect(await ids({ status: 'retrying', webhook_id: 'wh_2', created_after: NOW + MINUTE, created_before: NOW + 3 * MINUTE })).toEqual(['dlv_2_2', 'dlv_1_2']);
        expect(await ids({ event_types: ['customer.created'] })).toEqual([]);
        expect(await ids({ event_types: ['customer.created', 'invoice.paid'], event_id: 'evt_3' })).toEqual(['dlv_3_2', 'dlv_3_1']);

        const firstPage = await storage.exportAttempts({}, 0, 5);
        const secondPage = await storage.exportAttempts({}, firstPage.at(-1)!.cursor, 5);
        expect([...firstPage, ...secondPage].map((row) => row.attempt.attempted_at)).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((i) => NOW + i));
        expect(secondPage).toHaveLength(3);
        const failed = await storage.exportAttempts({ status: 'retrying', attempted_after: NOW + 2, attempted_before: NOW + 7 }, 0, 100);
        const expected = jobs.flatMap((job, i) => (job.delivery.webhook_id === 'wh_2' && i >= 2 && i <= 6 ? [NOW + i] : []));
        expect(expected.length).toBeGreaterThan(0);
        expect(failed.map((row) => row.attempt.attempted_at)).toEqual(expected);
        expect(failed.every((row) => row.delivery_status === 'retrying' && row.attempt.webhook_id === 'wh_2')).toBe(true);
        expect(failed[0]!.attempt.request_payload).toBe(jobs.find((job) => job.delivery.id === failed[0]!.attempt.delivery_id)!.event.payload);
      });

      it('counts what a filter selects; matches the correlation id and the class of the latest attempt\'s status', async () => {
        const storage = await (await create()).open();
        await storage.insertWebhook(webhook('wh_1'));
        const correlations: string[] = [];
        for (let i = 0; i < 5; i++) {
          const event = storedEvent(`evt_${i}`, NOW + i * MINUTE);
          correlations.push(event.correlation_id);
          await storage.insertEvent(event, [{ id: `dlv_${i}`, webhook_id: 'wh_1', next_attempt_at: NOW }]);
        }
        // dlv_0: 500 then 204 (latest 2xx); dlv_1: 204 then 503 (latest 5xx); dlv_2: no answer; dlv_3: 404; dlv_4: not attempted.
        const answers: Record<string, Partial<NewAttempt>[]> = {
          dlv_0: [{}, { response_status: 204, error_kind: null }],
          dlv_1: [{ response_status: 204, error_kind: null }, { response_status: 503 }],
          dlv_2: [{ response_status: null, error_kind: 'timeout', response_body: null }],
          dlv_3: [{ response_status: 404 }],
        };
        for (const [id, attempts] of Object.entries(answers)) {
          for (const [n, fields] of attempts.entries()) {
            const job = (await storage.loadJob(id))!;
            await record(storage, attemptOf(job, { attempted_at: NOW + n, ...fields }), afterAttempt({ delivered: false, manual: true, leaseOwner: 'w', startedAt: NOW, schedule: [0, 60] }));
          }
        }
        const matching = async (query: DeliveryCountQuery) => {
          const listed = (await storage.listDeliveries({ limit: 100, offset: 0, ...query })).map((d) => d.id);
          expect(await storage.countDeliveries(query)).toBe(listed.length);
          return listed;
        };
        expect(await storage.countDeliveries({})).toBe(5);
        expect(await matching({ response_status_range: [200, 299] })).toEqual(['dlv_0']);
        expect(await matching({ response_status_range: [500, 599] })).toEqual(['dlv_1']);
        expect(await matching({ response_status_range: [400, 499] })).toEqual(['dlv_3']);
        expect(await matching({ response_status_range: [0, 0] })).toEqual(['dlv_2']);
        expect(await matching({ correlation_id: correlations[3]! })).toEqual(['dlv_3']);
        expect(await matching({ correlation_id: correlations[3]!, response_status_range: [500, 599] })).toEqual([]);
        expect(await matching({ created_after: NOW + 2 * MINUTE, event_types: ['invoice.paid'] })).toEqual(['dlv_4', 'dlv_3', 'dlv_2']);
      });
    });

    describe('leases', () => {
      it('two claims never get the same delivery; a lease makes it not due until it expires', async () => {
        const storage = await (await create()).open();
        const now = 1_000_000;
        await seed(storage, { webhooks: 3, events: 5, url: 'https://receiver.example/', now });
        const a = await storage.claimDue({ now, limit: 10, lease: { owner: 'a', until: now + 100 } });
        const b = await storage.claimDue({ now, limit: 10, lease: { owner: 'b', until: now + 100 } });
        expect(a).toHaveLength(10);
        expect(b).toHaveLength(5);
        const ids = [...a, ...b].map((job) => job.delivery.id);
        expect(new Set(ids).size).toBe(15);
        expect(await storage.claimDue({ now: now + 99, limit: 10, lease: { owner: 'c', until: now + 200 } })).toHaveLength(0);
        expect(await storage.nextDueAt()).toBe(now + 100);
        const expired = await storage.claimDue({ now: now + 100, limit: 100, lease: { owner: 'c', until: now + 200 } });
        expect(expired).toHaveLength(15);
        expect(expired.every((job) => job.delivery.lease_owner === 'c')).toBe(true);
      });

      it('reports as due only what a claim can take: a disabled webhook\'s deliveries wait until it is active again', async () => {
        const storage = await (await create()).open();
        const lease = { owner: 'w', until: NOW + 60_000 };
        await storage.insertWebhook(webhook('wh_on'));
        await storage.insertWebhook(webhook('wh_off'));
        await storage.insertEvent(storedEvent('evt_1'), [
          { id: 'dlv_off', webhook_id: 'wh_off', next_attempt_at: NOW },
          { id: 'dlv_on', webhook_id: 'wh_on', next_attempt_at: NOW + 5_000 },
        ]);
        expect(await storage.nextDueAt()).toBe(NOW);
        await storage.updateWebhook('wh_off', { status: 'disabled' }, NOW);
        expect(await storage.nextDueAt()).toBe(NOW + 5_000);
        expect(await storage.claimDue({ now: NOW, limit: 10, lease })).toEqual([]);
        // Created while its webhook is disabled (a test send): not due either.
        await storage.insertEvent(storedEvent('evt_2'), [{ id: 'dlv_off_2', webhook_id: 'wh_off', next_attempt_at: NOW }]);
        await storage.updateWebhook('wh_on', { status: 'disabled' }, NOW);
        expect(await storage.nextDueAt()).toBeNull();

        await storage.updateWebhook('wh_off', { status: 'active' }, NOW + 1);
        expect(await storage.nextDueAt()).toBe(NOW);
        const jobs = await storage.claimDue({ now: NOW, limit: 10, lease });
        expect(jobs.map((job: DeliveryJob) => job.delivery.id).sort()).toEqual(['dlv_off', 'dlv_off_2']);
        expect(await storage.nextDueAt()).toBe(lease.until);
      });

      it('concurrent claims from several connections split the due deliveries without overlap', async () => {
        const fixture = await create();
        const storages = await Promise.all([fixture.open(), fixture.open(), fixture.open()]);
        await seed(storages[0], { webhooks: 4, events: 50, url: 'https://receiver.example/', now: NOW });
        const claimed = await Promise.all(
          Array.from({ length: 30 }, (_, i) => storages[i % 3]!.claimDue({ now: NOW, limit: 10, lease: { owner: `w${i}`, until: NOW + 1_000 } })),
        );
        const ids = claimed.flat().map((job) => job.delivery.id);
        expect(ids).toHaveLength(200);
        expect(new Set(ids).size).toBe(200);
      });

    });

  });
}

/**
 * `create`, with every store its fixtures open closed when the case ends (the suites' own
 * `afterEach`, registered in the calling `describe`).
 */
export function closingStores(test: ContractTestApi, create: () => Promise<DispatchStoreFixture> | DispatchStoreFixture): () => Promise<{ open(): Promise<DispatchStore> }> {
  const opened: DispatchStore[] = [];
  test.afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  return async () => {
    const fixture = await create();
    return {
      async open() {
        const store = await fixture.open();
        opened.push(store);
        return store;
      },
    };
  };
}
