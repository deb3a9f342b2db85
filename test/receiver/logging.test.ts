import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { memoryStore, webhookHandler, Webhooks } from '../../src/index.js';
import { createTestEvent, signedHeaders, signedRequest } from '../../src/testing/index.js';

const SECRET = 'whsec_loggingSecretNeverToBePrinted000';
const OLD_SECRET = 'whsec_previousLoggingSecretNeverPrinted';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const text: string[] = [];
  const logger = pino({ level: 'debug' }, {
    write(line: string) {
      text.push(line);
      lines.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  return { logger, lines, text };
}

describe('receiver logging', () => {
  it('writes one line per delivery with event id, type, correlation id, outcome, status and duration', async () => {
    const { logger, lines } = capture();
    const app = express().use(webhookHandler({ secret: SECRET, store: memoryStore(), logger }));
    const event = createTestEvent('subscription.renewed');
    const { body, headers } = signedRequest(event, SECRET);
    await request(app).post('/webhooks').set(headers).send(body).expect(200);
    await request(app).post('/webhooks').set(signedHeaders(body, SECRET)).send(body).expect(200);
    const deliveries = lines.filter((line) => line.msg === 'webhook delivery');
    expect(deliveries).toHaveLength(2);
    expect(deliveries[0]).toMatchObject({
      eventId: event.id,
      type: 'subscription.renewed',
      correlationId: event.correlation_id,
      outcome: 'handled',
      status: 200,
      durationMs: expect.any(Number),
    });
    expect(deliveries[1]).toMatchObject({ eventId: event.id, outcome: 'duplicate', status: 200 });
  });

  it('never writes a secret or a signature, whatever goes wrong', async () => {
    const { logger, text } = capture();
    const hooks = new Webhooks()
      .on('invoice.paid', (_event, { log }) => {
        log.info({ headers: { 'x-svc-signature': 'handler-logged-signature' }, secret: SECRET, 'x-svc-signature': 'handler-logged-top-level' }, 'careless handler log');
        throw new Error('ledger unavailable');
      })
      .onError(() => {
        throw new Error('alerting unavailable');
      });
    const app = express().use(webhookHandler({ secret: [SECRET, OLD_SECRET], handlers: hooks, store: memoryStore(), logger }));
    const { body, headers } = signedRequest(createTestEvent('invoice.paid'), SECRET);
    const signatures = [headers['x-svc-signature']];
    await request(app).post('/webhooks').set(headers).send(body).expect(500);
    const wrong = signedHeaders(body, 'whsec_attackerGuess');
    signatures.push(wrong['x-svc-signature']);
    await request(app).post('/webhooks').set(wrong).send(body).expect(401);
    const stale = signedHeaders(body, SECRET, { timestamp: Math.floor(Date.now() / 1000) - 900 });
    signatures.push(stale['x-svc-signature']);
    await request(app).post('/webhooks').set(stale).send(body).expect(401);
    await request(app).post('/webhooks').set({ ...headers, 'x-svc-signature': ` ${SECRET}` }).send(body).expect(400);

    const everything = text.join('');
    expect(everything).toContain('ledger unavailable');
    expect(everything).toContain('alerting unavailable');
    expect(everything).toContain('SIGNATURE_MISMATCH');
    for (const secret of [SECRET, OLD_SECRET, SECRET.slice(6)]) expect(everything).not.toContain(secret);
    for (const signature of [...signatures, 'handler-logged-signature', 'handler-logged-top-level']) expect(everything).not.toContain(signature);
  });

  it("blanks secrets in a handler's log lines on top of the user's own pino redaction, which stays in force", async () => {
    const text: string[] = [];
    const logger = pino({ level: 'debug', redact: ['customer.email'] }, { write: (line: string) => void text.push(line) });
    const hooks = new Webhooks().on('customer.created', (_event, { log }) => {
      log.info({ customer: { email: 'anna@example.at', name: 'Anna' }, secret: SECRET }, 'customer stored');
      log.child({ step: 'mail' }).warn({ customer: { email: 'anna@example.at' }, headers: { authorization: 'Bearer t0k3n' } }, 'welcome mail');
    });
    const app = express().use(webhookHandler({ secret: SECRET, handlers: hooks, store: memoryStore(), logger }));
    const { body, headers } = signedRequest(createTestEvent('customer.created'), SECRET);
    await request(app).post('/webhooks').set(headers).send(body).expect(200);
    const lines = text.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.find((line) => line.msg === 'customer stored')).toMatchObject({ customer: { email: '[Redacted]', name: 'Anna' }, secret: '[redacted]' });
    expect(lines.find((line) => line.msg === 'welcome mail')).toMatchObject({ step: 'mail', customer: { email: '[Redacted]' }, headers: '[redacted]' });
    const everything = text.join('');
    for (const kept of ['anna@example.at', 't0k3n', SECRET]) expect(everything).not.toContain(kept);
  });

  it('reports every failure of a delivery in its log line', async () => {
    const { logger, lines } = capture();
    const hooks = new Webhooks()
      .on('payment.failed', () => {
        throw new Error('first');
      })
      .on('payment.*', () => {
        throw new Error('second');
      });
    const app = express().use(webhookHandler({ secret: SECRET, handlers: hooks, store: memoryStore(), logger }));
    const { body, headers } = signedRequest(createTestEvent('payment.failed'), SECRET);
    await request(app).post('/webhooks').set(headers).send(body).expect(500);
    const line = lines.find((entry) => entry.outcome === 'handler_failed');
    expect(line).toMatchObject({ status: 500, level: 50 });
    const failures = (line!.err as { aggregateErrors: { message: string }[] }).aggregateErrors;
    expect(failures.map((failure) => failure.message).sort()).toEqual(['first', 'second']);
  });

  it('is silent with logger: false', async () => {
    const writes: string[] = [];
    const original = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => writes.push(String(chunk)) > 0);
    try {
      const app = express().use(webhookHandler({ secret: SECRET, store: memoryStore(), logger: false }));
      const { body, headers } = signedRequest(createTestEvent('invoice.paid'), SECRET);
      await request(app).post('/webhooks').set(headers).send(body).expect(200);
      await request(app).post('/webhooks').set({ ...headers, 'x-svc-signature': 'ab' }).send(body).expect(401);
    } finally {
      process.stdout.write = original;
    }
    expect(writes.filter((line) => line.includes('webhook delivery'))).toEqual([]);
  });
});
