import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
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

describe('logging', () => {
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
});
