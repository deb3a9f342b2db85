import { describe, expect, it } from 'vitest';
import { RETRY_SCHEDULE } from '../../src/dispatcher.js';
import { afterAttempt, waitBeforeAttempt } from '../../src/dispatcher/schedule.js';
import type { StoredDelivery } from '../../src/ports/dispatch-store.js';
import { createTestEvent } from '../../src/testing/index.js';
import { withServer } from '../helpers/server.js';
import { clockedDispatcher, MINUTE, Receiver } from './fixtures.js';

describe('the retry schedule', () => {
  it('is the platform document: waits 0, 1 min, 5 min, 30 min, 2 h, 8 h, 24 h', () => {
    expect(RETRY_SCHEDULE).toEqual([0, 60, 300, 1800, 7200, 28800, 86400]);
    expect(Object.isFrozen(RETRY_SCHEDULE)).toBe(true);
    expect(waitBeforeAttempt(RETRY_SCHEDULE, 2)).toBe(MINUTE);
    expect(waitBeforeAttempt(RETRY_SCHEDULE, 8)).toBeNull();
  });

  it('against a receiver that always answers 500: attempts at 0, 1, 6, 36, 156, 636, 2076 minutes, then finally_failed', async () => {
    const receiver = new Receiver(() => 500);
    await withServer(receiver.listener, async (url) => {
      const { dispatcher, clock } = clockedDispatcher();
      await dispatcher.webhooks.create({ url, events: ['invoice.paid'] });
      const start = clock.now();
      await dispatcher.emit(createTestEvent('invoice.paid'));

      const expectedMinutes = [0, 1, 6, 36, 156, 636, 2076];
      expect(await dispatcher.runDue()).toBe(1); // attempt 1 is due at once
      for (const [index, minutes] of expectedMinutes.entries()) {
        if (index === 0) continue;
        clock.set(start + minutes * MINUTE - 1);
        expect(await dispatcher.runDue()).toBe(0);
        clock.set(start + minutes * MINUTE);
        expect(await dispatcher.runDue()).toBe(1);
        expect(receiver.requests).toHaveLength(index + 1);
      }

      const [delivery] = await dispatcher.deliveries.list();
      const detail = await dispatcher.deliveries.get(delivery!.id);
      expect(detail.status).toBe('finally_failed');
      expect(detail.next_attempt_at).toBeNull();
      expect(detail.attempt_count).toBe(7);
      expect(detail.attempts.map((attempt) => (Date.parse(attempt.attempted_at) - start) / MINUTE)).toEqual(expectedMinutes);
      expect(detail.attempts.map((attempt) => attempt.attempt_number)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(detail.attempts.every((attempt) => attempt.response_status === 500 && attempt.error_kind === 'http_status')).toBe(true);

      clock.advance(30 * 24 * 60 * MINUTE);
      expect(await dispatcher.runDue()).toBe(0);
      expect(receiver.requests).toHaveLength(7);
    });
  });

  it('against a receiver that fails twice, then answers 204: delivered at attempt 3, no more attempts', async () => {
    const receiver = new Receiver((request) => (request.index < 2 ? 503 : 204));
    await withServer(receiver.listener, async (url) => {
      const { dispatcher, clock } = clockedDispatcher();
      await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.emit(createTestEvent('payment.received'));
      await dispatcher.runDue();
      clock.advance(MINUTE);
      await dispatcher.runDue();
      clock.advance(5 * MINUTE);
      await dispatcher.runDue();

      const [delivery] = await dispatcher.deliveries.list();
      expect(delivery).toMatchObject({ status: 'delivered', attempt_count: 3, next_attempt_at: null });
      const detail = await dispatcher.deliveries.get(delivery!.id);
      expect(detail.attempts.map((attempt) => [attempt.attempt_number, attempt.response_status])).toEqual([
        [1, 503],
        [2, 503],
        [3, 204],
      ]);
      clock.advance(48 * 60 * MINUTE);
      expect(await dispatcher.runDue()).toBe(0);
      expect(receiver.requests).toHaveLength(3);
    });
  });

  it('times the next attempt from the start of the previous one, also when the worker was late', async () => {
    const receiver = new Receiver(() => 500);
    await withServer(receiver.listener, async (url) => {
      const { dispatcher, clock } = clockedDispatcher();
      await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.emit(createTestEvent('invoice.sent'));
      await dispatcher.runDue();
      clock.advance(10 * MINUTE); // attempt 2 was due after 1 minute; it runs 9 minutes late
      const lateStart = clock.now();
      await dispatcher.runDue();
      const [delivery] = await dispatcher.deliveries.list();
      expect(delivery!.next_attempt_at).toBe(new Date(lateStart + 5 * MINUTE).toISOString());
    });
  });
});

describe('afterAttempt (the delivery state machine)', () => {
  const base: StoredDelivery = {
    id: 'dlv_1',
    event_id: 'evt_1',
    event_type: 'invoice.paid',
    webhook_id: 'wh_1',
    correlation_id: 'cor_1',
    status: 'retrying',
    attempt_count: 1,
    automatic_attempt_count: 1,
    next_attempt_at: 1_000,
    lease_owner: 'me',
    lease_until: 1_000,
    test: false,
    replay: false,
    created_at: 0,
    updated_at: 0,
  };
  const outcome = { manual: false, leaseOwner: 'me', startedAt: 500, schedule: RETRY_SCHEDULE };

  it('plans the next automatic attempt a schedule step after the start of this one', () => {
    expect(afterAttempt({ ...outcome, delivered: false })(base)).toEqual({
      status: 'retrying',
      automatic_attempt_count: 2,
      next_attempt_at: 500 + 5 * MINUTE,
      lease_owner: null,
      lease_until: null,
    });
  });

  it('leaves the state alone when the lease went to another worker, unless the attempt delivered', () => {
    const stolen = { ...base, lease_owner: 'other' };
    expect(afterAttempt({ ...outcome, delivered: false })(stolen)).toMatchObject({ status: 'retrying', lease_owner: 'other', automatic_attempt_count: 1 });
    expect(afterAttempt({ ...outcome, delivered: true })(stolen)).toMatchObject({ status: 'delivered', next_attempt_at: null, lease_owner: null });
  });

  it('a failed manual attempt changes nothing; a successful one delivers even a finally failed delivery', () => {
    const failed = { ...base, status: 'finally_failed' as const, next_attempt_at: null, lease_owner: null, lease_until: null, automatic_attempt_count: 7 };
    expect(afterAttempt({ ...outcome, manual: true, delivered: false })(base)).toMatchObject({ status: 'retrying', next_attempt_at: 1_000 });
    expect(afterAttempt({ ...outcome, manual: true, delivered: true })(failed)).toMatchObject({ status: 'delivered', automatic_attempt_count: 7 });
  });
});
