import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { inspect } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  memoryStore,
  sqliteStore,
  webhookHandler,
  Webhooks,
} from '../../src/index.js';
import { signLegacyPayload } from '../../src/signing/signature.js';
import { createTestEvent, signedHeaders, signedRequest } from '../../src/testing/index.js';

const SECRET = 'whsec_expressAdapterSecret000000000000';

function counting() {
  const seen: string[] = [];
  const hooks = new Webhooks().onAny((event) => {
    seen.push(event.id);
  });
  return { hooks, seen };
}

describe('webhookHandler on Express', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'acct-webhook-express-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('answers on any route it is mounted on with app.post', async () => {
    const { hooks, seen } = counting();
    const app = express().post('/platform/events', webhookHandler({ secret: SECRET, handlers: hooks, store: memoryStore(), logger: false }));
    const { body, headers } = signedRequest(createTestEvent('invoice.sent'), SECRET);
    await request(app).post('/platform/events').set(headers).send(body).expect(200);
    expect(seen).toHaveLength(1);
  });

  it('answers under a mount prefix with app.use(prefix, …)', async () => {
    const app = express().use('/hooks', webhookHandler({ secret: SECRET, store: memoryStore(), logger: false }));
    const { body, headers } = signedRequest(createTestEvent('invoice.sent'), SECRET);
    await request(app).post('/hooks/webhooks').set(headers).send(body).expect(200);
  });

  it('fails loudly with BODY_ALREADY_PARSED when express.json() ran first — never a misleading 401', async () => {
    const { hooks, seen } = counting();
    const app = express()
      .use(express.json())
      .use(webhookHandler({ secret: SECRET, handlers: hooks, store: memoryStore(), logger: false }));
    const { body, headers } = signedRequest(createTestEvent('invoice.paid'), SECRET);
    const response = await request(app).post('/webhooks').set(headers).send(body).expect(500);
    expect(response.body.error.code).toBe('BODY_ALREADY_PARSED');
    expect(response.body.error.message).toMatch(/before/);
    expect(seen).toHaveLength(0);
  });

  const parsers: [string, express.RequestHandler][] = [
    ['express.raw() (a Buffer req.body)', express.raw({ type: 'application/json' })],
    [
      'express.json() keeping req.rawBody',
      express.json({
        verify: (req, _res, buf) => {
          (req as unknown as { rawBody: Buffer }).rawBody = Buffer.from(buf);
        },
      }),
    ],
    ['express.text() (a string req.body)', express.text({ type: 'application/json' })],
  ];
  it.each(parsers)('uses the raw bytes kept by %s', async (_name, parser) => {
    const { hooks, seen } = counting();
    const app = express()
      .use(parser)
      .use(webhookHandler({ secret: SECRET, handlers: hooks, store: memoryStore(), logger: false }));
    const { body, headers } = signedRequest(createTestEvent('customer.updated', { data: { object: { name: 'Café Größl KG' } } }), SECRET);
    await request(app).post('/webhooks').set(headers).send(body).expect(200);
    expect(seen).toHaveLength(1);
  });

  const badConfigurations: [string, () => unknown][] = [
    ['no secret', () => webhookHandler(undefined as never)],
    ['an empty secret', () => webhookHandler('')],
    ['an empty list', () => webhookHandler([])],
    ['a list with an empty secret', () => webhookHandler([SECRET, ''])],
    ['options without secret', () => webhookHandler({ handlers: new Webhooks() } as never)],
    ['handlers that are not Webhooks', () => webhookHandler({ secret: SECRET, handlers: { on() {} } as never })],
    ['a path without a leading slash', () => webhookHandler({ secret: SECRET, path: 'webhooks' })],
    ['a negative handler budget', () => webhookHandler({ secret: SECRET, handlerTimeoutMs: -1 })],
    ['a zero body limit', () => webhookHandler({ secret: SECRET, maxBodyBytes: 0 })],
    ['an unknown onUnknownEvent', () => webhookHandler({ secret: SECRET, onUnknownEvent: 'drop' as never })],
    ['a store retention under 35 h', () => webhookHandler({ secret: SECRET, store: memoryStore({ retentionMs: 34 * 3600_000 }) })],
  ];
  it.each(badConfigurations)('throws INVALID_CONFIGURATION when created with %s', (_name, create) => {
    expect(create).toThrow(ConfigurationError);
    expect(() => {
      try {
        create();
      } catch (error) {
        throw new Error((error as ConfigurationError).code);
      }
    }).toThrow('INVALID_CONFIGURATION');
  });

  it('remembers handled events across a restart on the same SQLite file', async () => {
    const file = join(dir, 'events.db');
    const { body } = signedRequest(createTestEvent('invoice.paid'), SECRET);

    const first = counting();
    const before = webhookHandler({ secret: SECRET, handlers: first.hooks, store: sqliteStore(file), logger: false });
    await request(express().use(before)).post('/webhooks').set(signedHeaders(body, SECRET)).send(body).expect(200);
    await before.receiver.close();

    const second = counting();
    const after = webhookHandler({ secret: SECRET, handlers: second.hooks, store: sqliteStore(file), logger: false });
    const response = await request(express().use(after)).post('/webhooks').set(signedHeaders(body, SECRET)).send(body).expect(200);
    await after.receiver.close();
    expect(response.body.duplicate).toBe(true);
    expect([first.seen.length, second.seen.length]).toEqual([1, 0]);
  });

  it('keeps its records in ./webhook-events.db when no store is given', async () => {
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const handler = webhookHandler({ secret: SECRET, logger: false });
      const { body, headers } = signedRequest(createTestEvent('uva.confirmed'), SECRET);
      await request(express().use(handler)).post('/webhooks').set(headers).send(body).expect(200);
      await handler.receiver.close();
      expect(existsSync(join(dir, 'webhook-events.db'))).toBe(true);
    } finally {
      process.chdir(cwd);
    }
  });

  it('accepts the legacy x-service-signature only when switched on', async () => {
    const body = JSON.stringify(createTestEvent('payment.failed'));
    const legacy = { 'content-type': 'application/json', ...signLegacyPayload({ payload: body, secret: SECRET }).headers };
    const strict = express().use(webhookHandler({ secret: SECRET, store: memoryStore(), logger: false }));
    expect((await request(strict).post('/webhooks').set(legacy).send(body).expect(400)).body.error.code).toBe('MISSING_SIGNATURE');
    const lenient = express().use(webhookHandler({ secret: SECRET, store: memoryStore(), logger: false, legacySignature: true }));
    await request(lenient).post('/webhooks').set(legacy).send(body).expect(200);
  });
});

describe('handlers and their context', () => {
  it('gives handlers a bound logger, the abort signal, the secret index and the receive time from the clock', async () => {
    const lines: Record<string, unknown>[] = [];
    const { default: pino } = await import('pino');
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const clockMs = Date.UTC(2026, 10, 22, 12, 0, 0);
    let seen: { secretIndex: number; receivedAt: Date; aborted: boolean; scheme: string } | undefined;
    const hooks = new Webhooks().on('invoice.paid', (event, context) => {
      context.log.info({ amount: event.data.object.amount }, 'invoice paid');
      seen = {
        secretIndex: context.secretIndex,
        receivedAt: context.receivedAt,
        aborted: context.signal.aborted,
        scheme: context.signatureScheme,
      };
    });
    const app = express().use(
      webhookHandler({ secret: ['whsec_current', SECRET], handlers: hooks, store: memoryStore(), logger, clock: () => clockMs }),
    );
    const event = createTestEvent('invoice.paid');
    const body = JSON.stringify(event);
    await request(app)
      .post('/webhooks')
      .set(signedHeaders(body, SECRET, { timestamp: clockMs / 1000 }))
      .send(body)
      .expect(200);
    expect(seen).toEqual({ secretIndex: 1, receivedAt: new Date(clockMs), aborted: false, scheme: 'v1' });
    const handlerLine = lines.find((line) => line.msg === 'invoice paid');
    expect(handlerLine).toMatchObject({ eventId: event.id, type: 'invoice.paid', correlationId: event.correlation_id, amount: 16950 });
  });

  it('gives a handler that logs its whole context the documented properties only, never the secret', async () => {
    let printed = '';
    let serialised = '';
    let atomicFromDestructuring: unknown;
    const hooks = new Webhooks().on('invoice.paid', (_event, context) => {
      printed = inspect(context, { depth: 5, showHidden: true });
      serialised = JSON.stringify(context);
      ({ atomic: atomicFromDestructuring } = context);
    });
    const app = express().use(webhookHandler({ secret: SECRET, handlers: hooks, store: memoryStore(), logger: false }));
    const body = JSON.stringify(createTestEvent('invoice.paid'));
    await request(app).post('/webhooks').set(signedHeaders(body, SECRET)).send(body).expect(200);
    expect(Object.keys(JSON.parse(serialised) as object).sort()).toEqual(['attempt', 'receivedAt', 'scheme', 'secretIndex', 'signatureScheme', 'stale']);
    expect(printed).not.toContain(SECRET);
    expect(printed).not.toContain('whsec_');
    expect(typeof atomicFromDestructuring).toBe('function');
  });

  it('reports several failing handlers together to onError, and survives onError throwing', async () => {
    const reported: { errors: readonly unknown[]; code: string }[] = [];
    const hooks = new Webhooks()
      .on('invoice.*', () => {
        throw new Error('ledger down');
      })
      .on(['invoice.paid', 'payment.received'], () => Promise.reject(new Error('mail down')))
      .on('invoice.paid', () => undefined)
      .onError((error) => {
        reported.push({ errors: error.errors, code: error.code });
      })
      .onError(() => {
        throw new Error('the error handler itself fails');
      });
    const app = express().use(webhookHandler({ secret: SECRET, handlers: hooks, store: memoryStore(), logger: false }));
    const { body, headers } = signedRequest(createTestEvent('invoice.paid'), SECRET);
    const response = await request(app).post('/webhooks').set(headers).send(body).expect(500);
    expect(response.body.error).toMatchObject({ code: 'HANDLER_FAILED', details: { failures: 2 } });
    expect(reported).toHaveLength(1);
    expect(reported[0]!.code).toBe('HANDLER_FAILED');
    expect(reported[0]!.errors.map((error) => (error as Error).message).sort()).toEqual(['ledger down', 'mail down']);
  });

  it('refuses unknown event names and patterns at registration', () => {
    const hooks = new Webhooks();
    expect(() => hooks.on('invoice.payed' as never, () => undefined)).toThrow(ConfigurationError);
    expect(() => hooks.on('bills.*' as never, () => undefined)).toThrow(ConfigurationError);
    expect(() => hooks.on([], () => undefined)).toThrow(ConfigurationError);
  });
});
