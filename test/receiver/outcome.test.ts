import express from 'express';
import { describe, expect, it } from 'vitest';
import { memoryStore, webhookHandler, Webhooks, type Logger, type ReceiveOutcome, type WebhookHandlerOptions } from '../../src/index.js';
import { createTestEvent, signedHeaders, signedRequest } from '../../src/testing/index.js';
import { adapters, post } from '../helpers/adapters.js';
import { withServer } from '../helpers/server.js';

const SECRET = 'whsec_outcomeHookSecret00000000000000';

/** A logger that keeps its lines, to compare the log line with the hook's report. */
function keepingLogger(): { logger: Logger; lines: { level: string; fields: Record<string, unknown>; message: string }[] } {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const at =
    (level: string) =>
    (fields: object | string, message?: string): void => {
      lines.push(typeof fields === 'string' ? { level, fields: {}, message: fields } : { level, fields: fields as Record<string, unknown>, message: message ?? '' });
    };
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => logger };
  return { logger, lines };
}

function hooks(): Webhooks {
  return new Webhooks()
    .on('invoice.paid', (event) => `paid ${event.data.object.id}`)
    .on('invoice.paid', async () => Promise.resolve(42))
    .on('payment.failed', () => {
      throw new Error('ledger unavailable');
    });
}

describe.each(adapters)('the outcome hook, $name', (adapter) => {
  function serve(extra: Partial<WebhookHandlerOptions> = {}) {
    const outcomes: ReceiveOutcome[] = [];
    const { logger, lines } = keepingLogger();
    const served = adapter.serve({ secret: SECRET, handlers: hooks(), store: memoryStore(), logger, onOutcome: (o) => outcomes.push(o), maxBodyBytes: 4096, ...extra });
    return { ...served, outcomes, lines };
  }

  const paid = createTestEvent('invoice.paid');
  const paidBody = JSON.stringify(paid);
  const failing = createTestEvent('payment.failed');
  const invalid = JSON.stringify(createTestEvent('invoice.sent', { data: { object: { currency: 'euro' } } }));
  const unknownType = JSON.stringify({ ...createTestEvent('invoice.paid'), type: 'invoice.archived' });

  const cases: [string, () => { body: string; headers: Record<string, string> }, Partial<ReceiveOutcome>][] = [
    ['a new event: handled, with what its handlers returned', () => ({ body: paidBody, headers: signedHeaders(paidBody, SECRET) }),
      { outcome: 'handled', status: 200, verified: true, eventId: paid.id, type: 'invoice.paid', correlationId: paid.correlation_id, duplicate: false, results: [`paid ${paid.data.object.id}`, 42] }],
    ['the same event again: a duplicate', () => ({ body: paidBody, headers: signedHeaders(paidBody, SECRET) }),
      { outcome: 'duplicate', status: 200, eventId: paid.id, duplicate: true }],
    ['a handler that throws: handler_failed with the error', () => signedRequest(failing, SECRET),
      { outcome: 'handler_failed', status: 500, code: 'HANDLER_FAILED', eventId: failing.id }],
    ['a forged signature: rejected, not verified', () => ({ body: paidBody, headers: signedHeaders(paidBody, 'whsec_somebodyElse') }),
      { outcome: 'rejected', status: 401, code: 'SIGNATURE_MISMATCH', verified: false }],
    ['an invalid payload: quarantined', () => ({ body: invalid, headers: signedHeaders(invalid, SECRET) }),
      { outcome: 'quarantined', status: 422, code: 'VALIDATION_ERROR', verified: true }],
    ['an unknown type: acknowledged and kept', () => ({ body: unknownType, headers: signedHeaders(unknownType, SECRET) }),
      { outcome: 'unknown_event_type', status: 200, code: 'UNKNOWN_EVENT_TYPE', type: 'invoice.archived' }],
    ['a body over the limit: rejected before reading it all', () => ({ body: 'x'.repeat(5000), headers: signedHeaders('x'.repeat(5000), SECRET) }),
      { outcome: 'rejected', status: 413, code: 'PAYLOAD_TOO_LARGE', verified: false }],
  ];

  it('reports every delivery once, in order, as the answer said', async () => {
    const { listener, outcomes } = serve();
    await withServer(listener, async (url) => {
      for (const [, request, expected] of cases) {
        const { body, headers } = request();
        const response = await post(url, body, headers);
        expect(response.status, JSON.stringify(expected)).toBe(expected.status);
      }
    });
    expect(outcomes).toHaveLength(cases.length);
    cases.forEach(([name, , expected], index) => expect(outcomes[index], name).toMatchObject(expected));
    const failed = outcomes[2]!;
    expect((failed.error as { errors: Error[] }).errors[0]!.message).toBe('ledger unavailable');
    expect(outcomes.every((o) => o.durationMs >= 0 && o.receivedAt instanceof Date)).toBe(true);
  });

  it('hands over the exact bytes received, and nothing that reveals the secret', async () => {
    const { listener, outcomes } = serve();
    const umlauts = createTestEvent('customer.created', { data: { object: { name: 'Bäckerei Müller & Söhne' } } });
    const body = Buffer.from(JSON.stringify(umlauts));
    await withServer(listener, async (url) => {
      await post(url, body, signedHeaders(body, SECRET));
    });
    expect(Buffer.compare(outcomes[0]!.rawBody, body)).toBe(0);
    const { rawBody: _bytes, ...rest } = outcomes[0]!;
    expect(JSON.stringify(rest)).not.toContain(SECRET);
  });

  it('writes the log line from the same report: one line per delivery, level by status', async () => {
    const { listener, outcomes, lines } = serve();
    await withServer(listener, async (url) => {
      for (const [, request] of cases) {
        const { body, headers } = request();
        await post(url, body, headers);
      }
    });
    const deliveryLines = lines.filter((line) => line.message === 'webhook delivery');
    expect(deliveryLines).toHaveLength(outcomes.length);
    deliveryLines.forEach((line, index) => {
      const outcome = outcomes[index]!;
      expect(line.fields).toMatchObject({ outcome: outcome.outcome, status: outcome.status, durationMs: outcome.durationMs });
      expect(line.level).toBe(outcome.status >= 500 ? 'error' : outcome.status >= 400 || outcome.outcome === 'unknown_event_type' ? 'warn' : 'info');
    });
  });

  it('keeps the answer when the hook throws, and logs that it threw', async () => {
    const { logger, lines } = keepingLogger();
    const { listener } = adapter.serve({
      secret: SECRET,
      handlers: hooks(),
      store: memoryStore(),
      logger,
      onOutcome: () => {
        throw new Error('metrics backend down');
      },
    });
    await withServer(listener, async (url) => {
      const response = await post(url, paidBody, signedHeaders(paidBody, SECRET));
      expect(response.status).toBe(200);
    });
    expect(lines.some((line) => line.level === 'error' && (line.fields.err as Error | undefined)?.message === 'metrics backend down')).toBe(true);
  });
});

describe('a logger that throws', () => {
  it.each(adapters)('changes no answer ($name)', async (adapter) => {
    const throwing = () => {
      throw new Error('log sink down');
    };
    const logger: Logger = { debug: throwing, info: throwing, warn: throwing, error: throwing, child: () => logger };
    const { listener } = adapter.serve({ secret: SECRET, handlers: hooks(), store: memoryStore(), logger });
    const event = createTestEvent('invoice.paid');
    const { body, headers } = signedRequest(event, SECRET);
    await withServer(listener, async (url) => {
      expect((await post(url, body, headers)).body).toMatchObject({ received: true, duplicate: false });
      expect((await post(url, body, headers)).body).toMatchObject({ duplicate: true });
      expect((await post(url, body, signedHeaders(body, 'whsec_forged'))).status).toBe(401);
    });
  });
});

describe('the outcome hook, Express specifics', () => {
  it('reports a body that a parser consumed first as rejected with BODY_ALREADY_PARSED', async () => {
    const outcomes: ReceiveOutcome[] = [];
    const app = express();
    app.use(express.json());
    app.use(webhookHandler({ secret: SECRET, store: memoryStore(), logger: false, onOutcome: (o) => outcomes.push(o) }));
    const { body, headers } = signedRequest(createTestEvent('invoice.paid'), SECRET);
    await withServer(app, async (url) => {
      expect((await post(url, body, headers)).status).toBe(500);
    });
    expect(outcomes).toEqual([expect.objectContaining({ outcome: 'rejected', status: 500, code: 'BODY_ALREADY_PARSED', verified: false })]);
  });
});
