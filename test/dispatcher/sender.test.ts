import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DELIVERY_TIMEOUT_MS, Dispatcher } from '../../src/dispatcher.js';
import { USER_AGENT } from '../../src/dispatcher/dispatcher-defaults.js';
import { WebhookVerificationError } from '../../src/kernel/errors.js';
import { verifySignature } from '../../src/signing/signature.js';
import { createTestEvent } from '../../src/testing/index.js';
import { FakeClock } from '../helpers/clock.js';
import { listen, close, withServer } from '../helpers/server.js';
import { clockedDispatcher, MINUTE, Receiver, tempDir, testDispatcher } from './fixtures.js';

async function onlyDelivery(dispatcher: Dispatcher) {
  const [delivery] = await dispatcher.deliveries.list();
  return dispatcher.deliveries.get(delivery!.id);
}

describe('an attempt', () => {
  it('POSTs the exact stored bytes, signed at send time with the current secret, with the custom headers', async () => {
    const receiver = new Receiver(() => 500);
    await withServer(receiver.listener, async (url) => {
      const { dispatcher, clock } = clockedDispatcher();
      const { secret } = await dispatcher.webhooks.create({ url: `${url}/hooks?x=1`, events: ['invoice.*'], headers: { 'x-api-key': 'k-123' } });
      const event = await dispatcher.emit(createTestEvent('invoice.paid'));
      await dispatcher.runDue();
      clock.advance(MINUTE);
      await dispatcher.runDue();

      const detail = await onlyDelivery(dispatcher);
      expect(receiver.requests).toHaveLength(2);
      for (const [index, request] of receiver.requests.entries()) {
        const attempt = detail.attempts[index]!;
        expect(request.method).toBe('POST');
        expect(request.path).toBe('/hooks?x=1');
        expect(request.body).toBe(attempt.request_payload);
        expect(JSON.parse(request.body)).toEqual(event);
        expect(request.headers).toMatchObject({
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'x-api-key': 'k-123',
          'content-length': String(Buffer.byteLength(request.body)),
          'x-svc-timestamp': String(Math.floor(Date.parse(attempt.attempted_at) / 1000)),
        });
        const verified = verifySignature({
          payload: request.body,
          signature: request.headers['x-svc-signature'],
          timestamp: request.headers['x-svc-timestamp'],
          secret,
          now: Date.parse(attempt.attempted_at),
        });
        expect(verified.secretIndex).toBe(0);
      }
      // Made at send time: the retry carries its own, later timestamp.
      expect(Number(receiver.requests[1]!.headers['x-svc-timestamp']) - Number(receiver.requests[0]!.headers['x-svc-timestamp'])).toBe(60);
    });
  });

  it('signs with signingClock when one is given: x-svc-timestamp is its time, while attempted_at, created and the schedule follow clock', async () => {
    const receiver = new Receiver(() => 500);
    const operator = new Receiver(() => 204);
    const [target, ops] = await Promise.all([listen(receiver.listener), listen(operator.listener)]);
    try {
      const wall = new FakeClock(Date.UTC(2026, 10, 22, 9, 0, 0));
      const { dispatcher, clock } = clockedDispatcher({
        signingClock: wall.now,
        schedule: [0, 60],
        disableFailingAfterMs: MINUTE,
        alertWebhook: { url: `${ops.url}/alerts`, secret: 'whsec_operator' },
      });
      clock.set(Date.UTC(2027, 0, 1));
      const { secret } = await dispatcher.webhooks.create({ url: `${target.url}/hooks`, events: ['*'] });
      const sample = createTestEvent('invoice.created');
      const event = await dispatcher.emit('invoice.created', sample.data.object, { business_id: sample.business_id });
      expect(event.created).toBe(new Date(Date.UTC(2027, 0, 1)).toISOString());
      await dispatcher.runDue();
      clock.advance(MINUTE);
      wall.advance(1_000);
      await dispatcher.runDue();

      const detail = await onlyDelivery(dispatcher);
      expect(detail.attempts.map((attempt) => attempt.attempted_at)).toEqual([new Date(Date.UTC(2027, 0, 1)).toISOString(), new Date(Date.UTC(2027, 0, 1) + MINUTE).toISOString()]);
      expect(receiver.requests.map((request) => Number(request.headers['x-svc-timestamp']))).toEqual([wall.now() / 1000 - 1, wall.now() / 1000]);
      for (const request of receiver.requests) {
        // A receiver on the signing clock accepts the request; one on the simulated clock would not.
        verifySignature({ payload: request.body, signature: request.headers['x-svc-signature'], timestamp: request.headers['x-svc-timestamp'], secret, now: wall.now() });
        expect(() =>
          verifySignature({ payload: request.body, signature: request.headers['x-svc-signature'], timestamp: request.headers['x-svc-timestamp'], secret, now: clock.now() }),
        ).toThrow(expect.objectContaining({ code: 'TIMESTAMP_TOO_OLD' }));
      }
      // The disable rule counts on `clock` (a minute of failure), and the alert is signed on the signing clock too.
      expect(await dispatcher.webhooks.list()).toMatchObject([{ status: 'disabled', disabled_at: new Date(Date.UTC(2027, 0, 1) + MINUTE).toISOString() }]);
      await operator.received(1);
      expect(operator.requests[0]!.headers['x-svc-timestamp']).toBe(String(wall.now() / 1000));
    } finally {
      await Promise.all([close(target.server), close(ops.server)]);
    }
  });

  it('logs the receiver IP, status, body and response time', async () => {
    const receiver = new Receiver(() => ({ status: 200, body: '{"received":true}' }));
    await withServer(receiver.listener, async (url) => {
      const dispatcher = testDispatcher();
      await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.emit(createTestEvent('customer.created'));
      await dispatcher.runDue();
      const [attempt] = (await onlyDelivery(dispatcher)).attempts;
      expect(attempt).toMatchObject({
        response_status: 200,
        receiver_ip: '127.0.0.1',
        response_body: '{"received":true}',
        response_body_truncated: false,
        error_kind: null,
        error_message: null,
      });
      expect(attempt!.response_time_ms).toBeGreaterThanOrEqual(0);
    });
  });

  it.each([
    [200, null],
    [201, null],
    [204, null],
    [299, null],
    [301, 'redirect'],
    [302, 'redirect'],
    [304, 'redirect'],
    [307, 'redirect'],
    [400, 'http_status'],
    [404, 'http_status'],
    [410, 'http_status'],
    [429, 'http_status'],
    [500, 'http_status'],
    [503, 'http_status'],
  ] as const)('treats an answer %i as %s', async (status, kind) => {
    const receiver = new Receiver(() => ({ status, headers: status >= 300 && status < 400 ? { location: '/elsewhere' } : {} }));
    await withServer(receiver.listener, async (url) => {
      const dispatcher = testDispatcher();
      await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.emit(createTestEvent('invoice.created'));
      await dispatcher.runDue();
      const detail = await onlyDelivery(dispatcher);
      expect(detail.status).toBe(kind === null ? 'delivered' : 'retrying');
      expect(detail.attempts[0]).toMatchObject({ response_status: status, error_kind: kind });
      expect(receiver.requests.map((request) => request.path)).toEqual(['/']); // a redirect is never followed
    });
  });

  it('keeps the first 64 KiB of an answer and flags the rest as truncated', async () => {
    const big = 'x'.repeat(100 * 1024);
    const receiver = new Receiver(() => ({ status: 500, body: big }));
    await withServer(receiver.listener, async (url) => {
      const dispatcher = testDispatcher();
      await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.emit(createTestEvent('invoice.created'));
      await dispatcher.runDue();
      const [attempt] = (await onlyDelivery(dispatcher)).attempts;
      expect(attempt!.response_body).toBe(big.slice(0, 64 * 1024));
      expect(attempt!.response_body_truncated).toBe(true);
      expect(attempt!.error_kind).toBe('http_status');
    });
  });

  it('fails as a timeout when no answer comes within timeoutMs, and is retried on the schedule', async () => {
    const receiver = new Receiver(() => 'hang');
    await withServer(receiver.listener, async (url) => {
      const { dispatcher, clock } = clockedDispatcher({ timeoutMs: 200 });
      await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.emit(createTestEvent('payment.failed'));
      const started = clock.now();
      await dispatcher.runDue();
      const detail = await onlyDelivery(dispatcher);
      expect(detail.attempts[0]).toMatchObject({ error_kind: 'timeout', response_status: null, response_body: null, receiver_ip: '127.0.0.1' });
      expect(detail.attempts[0]!.response_time_ms).toBeGreaterThanOrEqual(190);
      expect(detail.attempts[0]!.response_time_ms).toBeLessThan(5_000);
      expect(detail).toMatchObject({ status: 'retrying', next_attempt_at: new Date(started + MINUTE).toISOString() });

      clock.advance(MINUTE);
      expect(await dispatcher.runDue()).toBe(1);
      expect(receiver.requests).toHaveLength(2);
    });
  });

  it('lets the status decide once it has arrived, also when the body then stalls', async () => {
    await withServer(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial'); // …and never ends
      },
      async (url) => {
        const dispatcher = testDispatcher({ timeoutMs: 200 });
        await dispatcher.webhooks.create({ url, events: ['*'] });
        await dispatcher.emit(createTestEvent('invoice.created'));
        await dispatcher.runDue();
        const detail = await onlyDelivery(dispatcher);
        expect(detail.status).toBe('delivered');
        expect(detail.attempts[0]).toMatchObject({ response_status: 200, response_body: 'partial', response_body_truncated: true, error_kind: null });
      },
    );
  });

  it('has a 30 s timeout by default', () => {
    expect(DELIVERY_TIMEOUT_MS).toBe(30_000);
    const dispatcher = new Dispatcher({ database: join(tempDir(), 'd.db'), logger: false });
    expect(dispatcher.settings.timeoutMs).toBe(30_000);
    return dispatcher.close();
  });

  it('fails as a connection error when nothing listens', async () => {
    const { server, url } = await listen(new Receiver().listener);
    await close(server); // the port is free now: connections are refused
    const dispatcher = testDispatcher();
    await dispatcher.webhooks.create({ url, events: ['*'] });
    await dispatcher.emit(createTestEvent('invoice.created'));
    await dispatcher.runDue();
    const [attempt] = (await onlyDelivery(dispatcher)).attempts;
    expect(attempt).toMatchObject({ error_kind: 'connection', response_status: null, receiver_ip: null });
    expect(attempt!.error_message).toMatch(/ECONNREFUSED/);
  });
});

describe('signature verification by a receiver', () => {
  it('rejects an attempt with a wrong secret (the signature is real HMAC, not decoration)', async () => {
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      const dispatcher = testDispatcher();
      await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.emit(createTestEvent('invoice.created'));
      await dispatcher.runDue();
      const [request] = receiver.requests;
      expect(() =>
        verifySignature({ payload: request!.body, signature: request!.headers['x-svc-signature'], timestamp: request!.headers['x-svc-timestamp'], secret: 'whsec_wrong' }),
      ).toThrow(WebhookVerificationError);
    });
  });
});
