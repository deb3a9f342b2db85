import { describe, expect, it } from 'vitest';
import type { AlertPayload, WebhookAlert } from '../../src/dispatcher/alerts.js';
import { DISABLE_FAILING_AFTER_MS } from '../../src/dispatcher/dispatcher-defaults.js';
import { healthAfterAttempt } from '../../src/dispatcher/webhook-health.js';
import { HEALTHY } from '../../src/dispatcher/webhook-health.js';
import { verifySignature } from '../../src/signing/signature.js';
import { createTestEvent } from '../../src/testing/index.js';
import { close, listen } from '../helpers/server.js';
import { clockedDispatcher, Receiver } from './fixtures.js';

const HOUR = 3_600_000;
const ALERT_SECRET = 'whsec_operator_alerts';

describe('healthAfterAttempt (the state machine)', () => {
  const policy = { disableAfterMs: 100, warnAt: [0.5, 0.9] };
  const failAt = (health = HEALTHY, at = 0) => healthAfterAttempt(health, { delivered: false, at }, policy);

  it.each([
    ['first failure', 0, 0, []],
    ['crossing 50 %', 40, 50, [{ kind: 'failing', threshold: 0.5 }]],
    ['crossing 50 % and 90 % at once', 10, 95, [{ kind: 'failing', threshold: 0.5 }, { kind: 'failing', threshold: 0.9 }]],
    ['within 50 %–90 %', 55, 60, []],
    ['reaching the stretch: disabled, instead of warnings', 60, 100, [{ kind: 'disabled' }]],
  ])('%s (%d → %d): %j', (_name, previous, at, alerts) => {
    const before = previous === 0 && at === 0 ? HEALTHY : { ...HEALTHY, failure_streak: 2, failing_since: 0, last_failure_at: previous };
    expect(failAt(before, at).alerts).toEqual(alerts);
  });

  it('a delivered attempt ends the streak; a disabled registration counts on and reports nothing', () => {
    const failing = failAt(failAt().health, 60).health;
    expect(healthAfterAttempt(failing, { delivered: true, at: 70 }, policy).health).toMatchObject({ failure_streak: 0, failing_since: null, last_failure_at: null });
    const disabled = failAt(failing, 100).health;
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'failing', disabled_at: 100, failure_streak: 3 });
    expect(failAt(disabled, 200)).toEqual({ health: { ...disabled, failure_streak: 4, last_failure_at: 200 }, alerts: [] });
  });
});

describe('failing webhooks, through the injected clock (SQLite, real loopback receivers)', () => {
  /** Emits an event every 12 h and runs what is due every hour, from `from` to `to` hours after the start. */
  async function runHours(dispatcher: { emit: (event: never) => Promise<unknown>; runDue: () => Promise<number> }, clock: { set: (ms: number) => void }, start: number, from: number, to: number): Promise<void> {
    for (let hour = from; hour <= to; hour++) {
      clock.set(start + hour * HOUR);
      if (hour % 12 === 0) await dispatcher.emit(createTestEvent('invoice.paid') as never);
      await dispatcher.runDue();
    }
  }

  it('warns at 50 % and 90 % of 72 h, disables, sends nothing while disabled, and enable + replay delivers the skipped events exactly once', async () => {
    let down = true;
    const receiver = new Receiver(() => (down ? 500 : 204));
    const operator = new Receiver(() => 204);
    const [target, ops] = await Promise.all([listen(receiver.listener), listen(operator.listener)]);
    try {
      const alerts: WebhookAlert[] = [];
      const { dispatcher, clock } = clockedDispatcher({ onWebhookAlert: (alert) => alerts.push(alert), alertWebhook: { url: `${ops.url}/alerts`, secret: ALERT_SECRET } });
      const start = clock.now();
      const { id } = await dispatcher.webhooks.create({ url: `${target.url}/webhooks`, events: ['*'] });

      await runHours(dispatcher, clock, start, 0, 71);
      expect(alerts.map((alert) => [alert.type, alert.threshold])).toEqual([
        ['webhook.failing', 0.5],
        ['webhook.failing', 0.9],
      ]);
      expect(alerts[0]).toMatchObject({ webhook_id: id, failing_since: new Date(start).toISOString(), disables_at: new Date(start + DISABLE_FAILING_AFTER_MS).toISOString(), error_kind: 'http_status', response_status: 500 });
      expect(await dispatcher.webhooks.get(id)).toMatchObject({ status: 'active', failing_since: new Date(start).toISOString() });

      await runHours(dispatcher, clock, start, 72, 72);
      expect(alerts.map((alert) => alert.type)).toEqual(['webhook.failing', 'webhook.failing', 'webhook.disabled']);
      const disabled = await dispatcher.webhooks.get(id);
      expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'failing', disabled_at: new Date(start + 72 * HOUR).toISOString(), skipped_events: 0 });
      expect(disabled.failure_streak).toBeGreaterThan(10);

      // The operator got each alert once, signed with its secret.
      await operator.received(3);
      const payloads = operator.requests.map((request) => {
        const payload = JSON.parse(request.body) as AlertPayload;
        const sentAt = Date.parse(payload.created);
        verifySignature({ payload: request.body, signature: request.headers['x-svc-signature'], timestamp: request.headers['x-svc-timestamp'], secret: ALERT_SECRET, now: sentAt });
        return payload;
      });
      expect(payloads.map((payload) => payload.type)).toEqual(['webhook.failing', 'webhook.failing', 'webhook.disabled']);
      expect(payloads[2]!.data).toMatchObject({ webhook_id: id, disabled_at: disabled.disabled_at, threshold: null });

      // Disabled: nothing is sent, new events are recorded as skipped.
      const sentBefore = receiver.requests.length;
      const skipped = [createTestEvent('invoice.sent'), createTestEvent('payment.received')];
      for (const event of skipped) await dispatcher.emit(event);
      for (let hour = 73; hour <= 120; hour++) {
        clock.set(start + hour * HOUR);
        expect(await dispatcher.runDue()).toBe(0);
      }
      expect(receiver.requests).toHaveLength(sentBefore);
      expect(await dispatcher.webhooks.get(id)).toMatchObject({ skipped_events: 2 });
      expect(await dispatcher.deliveries.list({ event_id: skipped[0]!.id })).toEqual([]);

      // Enabled with a replay: the skipped events are delivered, each once; a second replay finds nothing.
      down = false;
      const enabled = await dispatcher.webhooks.enable(id, { replay: true });
      expect(enabled).toMatchObject({ status: 'active', disabled_reason: null, disabled_at: null, failure_streak: 0, replayed: 2, skipped_events: 0 });
      await dispatcher.runDue();
      expect(await dispatcher.webhooks.enable(id, { replay: true })).toMatchObject({ replayed: 0 });
      expect(await dispatcher.runDue()).toBe(0);
      const received = receiver.eventIds();
      for (const event of skipped) expect(received.filter((eventId) => eventId === event.id)).toHaveLength(1);
      expect(await dispatcher.deliveries.list({ status: 'retrying' })).toEqual([]);
    } finally {
      await Promise.all([close(target.server), close(ops.server)]);
    }
  });

  it('a receiver that recovers before the limit starts from nothing: failing again for 60 h disables nothing', async () => {
    let down = true;
    const receiver = new Receiver(() => (down ? 503 : 204));
    const target = await listen(receiver.listener);
    try {
      const alerts: WebhookAlert[] = [];
      const { dispatcher, clock } = clockedDispatcher({ onWebhookAlert: (alert) => alerts.push(alert) });
      const start = clock.now();
      const { id } = await dispatcher.webhooks.create({ url: `${target.url}/webhooks`, events: ['*'] });
      await runHours(dispatcher, clock, start, 0, 60);
      down = false;
      await runHours(dispatcher, clock, start, 61, 61);
      expect(await dispatcher.webhooks.get(id)).toMatchObject({ status: 'active', failure_streak: 0, failing_since: null });
      down = true;
      await runHours(dispatcher, clock, start, 62, 122);
      const failingAgain = await dispatcher.webhooks.get(id);
      expect(failingAgain.status).toBe('active');
      expect(Date.parse(failingAgain.failing_since!)).toBeGreaterThanOrEqual(start + 62 * HOUR);
      expect(alerts.map((alert) => [alert.type, alert.threshold])).toEqual([
        ['webhook.failing', 0.5],
        ['webhook.failing', 0.5],
      ]);
    } finally {
      await close(target.server);
    }
  });
});
