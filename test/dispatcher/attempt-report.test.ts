import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { AttemptReport } from '../../src/dispatcher.js';
import type { Logger } from '../../src/index.js';
import { createTestEvent } from '../../src/testing/index.js';
import { withServer } from '../helpers/server.js';
import { clockedDispatcher, MINUTE, Receiver } from './fixtures.js';

function captured(): { logger: pino.Logger; lines: () => Record<string, unknown>[]; text: () => string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      text += chunk.toString('utf8');
      callback();
    },
  });
  return {
    logger: pino({ level: 'debug' }, sink),
    text: () => text,
    lines: () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('the log line and the onAttempt hook of each attempt', () => {
  it('writes one line per attempt, and never the secret, the signature or custom header values', async () => {
    const receiver = new Receiver((request) => (request.index < 1 ? 500 : 204));
    await withServer(receiver.listener, async (url) => {
      const log = captured();
      const { dispatcher, clock } = clockedDispatcher({ logger: log.logger });
      const { secret, id } = await dispatcher.webhooks.create({ url, events: ['*'], headers: { authorization: 'Bearer s3cr3t-token' } });
      const event = await dispatcher.emit(createTestEvent('invoice.paid'));
      await dispatcher.runDue();
      clock.advance(MINUTE);
      await dispatcher.runDue();

      const attempts = log.lines().filter((line) => 'attempt' in line);
      expect(attempts).toHaveLength(2);
      expect(attempts[0]).toMatchObject({
        level: 40,
        component: 'dispatcher',
        event_id: event.id,
        event_type: 'invoice.paid',
        webhook_id: id,
        attempt: 1,
        status: 500,
        outcome: 'failed',
        error_kind: 'http_status',
        delivery_status: 'retrying',
      });
      expect(attempts[0]).toHaveProperty('delivery_id');
      expect(attempts[0]).toHaveProperty('ms');
      expect(attempts[1]).toMatchObject({ level: 30, attempt: 2, status: 204, outcome: 'delivered', delivery_status: 'delivered' });

      const signatures = receiver.requests.map((request) => request.headers['x-svc-signature'] as string);
      for (const forbidden of [secret, ...signatures, 's3cr3t-token']) expect(log.text()).not.toContain(forbidden);
    });
  });

  it('logs the last failed attempt as an error', async () => {
    const receiver = new Receiver(() => 500);
    await withServer(receiver.listener, async (url) => {
      const log = captured();
      const { dispatcher } = clockedDispatcher({ logger: log.logger, schedule: [0] });
      await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.emit(createTestEvent('uva.rejected'));
      await dispatcher.runDue();
      expect(log.lines().filter((line) => 'attempt' in line)).toMatchObject([{ level: 50, delivery_status: 'finally_failed' }]);
    });
  });

  it('reports every recorded attempt to onAttempt with its log row and the delivery after it, as the log line says', async () => {
    const receiver = new Receiver((request) => (request.index < 1 ? 503 : 200));
    await withServer(receiver.listener, async (url) => {
      const log = captured();
      const reports: AttemptReport[] = [];
      const { dispatcher, clock } = clockedDispatcher({ logger: log.logger, onAttempt: (report) => reports.push(report) });
      const { id } = await dispatcher.webhooks.create({ url, events: ['invoice.*'] });
      const event = await dispatcher.emit(createTestEvent('invoice.sent'));
      const retryAt = new Date(clock.now() + MINUTE).toISOString();
      await dispatcher.runDue();
      clock.advance(MINUTE);
      await dispatcher.runDue();

      expect(reports.map(({ attempt, delivery }) => [attempt.attempt_number, attempt.response_status, delivery.status])).toEqual([
        [1, 503, 'retrying'],
        [2, 200, 'delivered'],
      ]);
      expect(reports[0]).toMatchObject({
        attempt: { event_id: event.id, webhook_id: id, error_kind: 'http_status', manual: false },
        delivery: { next_attempt_at: retryAt },
      });
      const detail = await dispatcher.deliveries.get(reports[1]!.delivery.id);
      expect(reports.map((report) => report.attempt)).toEqual(detail.attempts);
      const lines = log.lines().filter((line) => 'attempt' in line);
      expect(lines.map((line) => [line.attempt, line.status, line.delivery_status, line.next_attempt_at])).toEqual(
        reports.map(({ attempt, delivery }) => [attempt.attempt_number, attempt.response_status, delivery.status, delivery.next_attempt_at]),
      );
    });
  });

  it('records the attempt and goes on when the hook throws, and logs that it threw', async () => {
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      const log = captured();
      const { dispatcher } = clockedDispatcher({
        logger: log.logger,
        onAttempt: () => {
          throw new Error('metrics backend down');
        },
      });
      await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.emit(createTestEvent('customer.created'));
      expect(await dispatcher.runDue()).toBe(1);
      expect(await dispatcher.deliveries.list()).toMatchObject([{ status: 'delivered', attempt_count: 1 }]);
      expect(log.lines().some((line) => line.level === 50 && (line.err as { message?: string } | undefined)?.message === 'metrics backend down')).toBe(true);
    });
  });

  it('records and reports every attempt when the logger throws', async () => {
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      const throwing = () => {
        throw new Error('log sink down');
      };
      const logger: Logger = { debug: throwing, info: throwing, warn: throwing, error: throwing, child: () => logger };
      const reports: AttemptReport[] = [];
      const { dispatcher } = clockedDispatcher({ logger, onAttempt: (report) => reports.push(report) });
      await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.emit(createTestEvent('customer.updated'));
      expect(await dispatcher.runDue()).toBe(1);
      expect(reports).toHaveLength(1);
      const [recorded] = await dispatcher.deliveries.list();
      expect((await dispatcher.deliveries.retry(recorded!.id)).attempt.attempt_number).toBe(2);
    });
  });
});
