import type { IncomingMessage, ServerResponse } from 'node:http';
import { serve as serveHono } from '@hono/node-server';
import Fastify, { type FastifyInstance } from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { fastifyWebhooks } from '../../src/adapters/fastify/index.js';
import { honoWebhooks } from '../../src/adapters/hono/index.js';
import { koaWebhooks } from '../../src/adapters/koa/index.js';
import { fetchHandler, memoryStore, nodeHandler, Webhooks, type ReceiveOutcome } from '../../src/index.js';
import { createTestEvent, signedRequest } from '../../src/testing/index.js';
import { post, readText } from '../helpers/adapters.js';
import { withServer } from '../helpers/server.js';

/*
 * What only some frameworks have (test/adapters/adapters.test.ts runs the shared contract against
 * every adapter): a body consumed before the adapter, the raw copy a parser kept, and Fastify's
 * plugin lifecycle.
 */
const SECRET = 'whsec_frameworkAdaptersSecret00000000';

function counting() {
  const seen: string[] = [];
  const outcomes: ReceiveOutcome[] = [];
  const hooks = new Webhooks().onAny((event) => void seen.push(event.id));
  return { seen, outcomes, options: { secret: SECRET, handlers: hooks, store: memoryStore(), logger: false as const, onOutcome: (outcome: ReceiveOutcome) => void outcomes.push(outcome) } };
}

describe('nodeHandler', () => {
  // What Next.js's Pages Router does to an API route without `config.api.bodyParser: false`: it
  // reads the stream, then leaves JSON parsed into req.body and any other type as its text.
  const nextLikeParser = (handler: ReturnType<typeof nodeHandler>) => (req: IncomingMessage, res: ServerResponse) =>
    void readText(req).then((text) => {
      (req as { body?: unknown }).body = req.headers['content-type'] === 'application/json' ? (JSON.parse(text) as unknown) : text;
      handler(req, res);
    });

  it('answers 500 BODY_ALREADY_PARSED at once, with the Next.js fix in the message, when a parser before it left only an object — not a 408 after the body timeout, not a 401', async () => {
    const { seen, outcomes, options } = counting();
    const handler = nodeHandler({ ...options, bodyTimeoutMs: 60_000 });
    const { body, headers } = signedRequest(createTestEvent('invoice.paid'), SECRET);
    await withServer(nextLikeParser(handler), async (url) => {
      const response = await post(url, body, { ...headers, 'content-type': 'application/json' });
      expect(response.status).toBe(500);
      expect(response.body).toMatchObject({ error: { code: 'BODY_ALREADY_PARSED' } });
    });
    expect(seen).toEqual([]);
    expect(outcomes).toEqual([expect.objectContaining({ status: 500, code: 'BODY_ALREADY_PARSED' })]);
    expect(String((outcomes[0]!.error as Error).message)).toContain('config.api.bodyParser = false');
  });

  it('verifies the text a parser before it left in req.body (Next.js does so for a type it does not parse)', async () => {
    const { seen, options } = counting();
    const handler = nodeHandler(options);
    const event = createTestEvent('invoice.paid');
    const { body, headers } = signedRequest(event, SECRET);
    await withServer(nextLikeParser(handler), async (url) => {
      expect((await post(url, body, { ...headers, 'content-type': 'text/plain' })).status).toBe(200);
    });
    expect(seen).toEqual([event.id]);
  });
});

describe('fetchHandler', () => {
  // What a Next.js route does that reads the body before it hands the Request on: the stream is
  // used up (request.json()) or held by a reader of its own.
  const readFirst = {
    'used (request.json() before the handler)': async (request: Request) => void (await request.json()),
    'locked (a reader on request.body)': (request: Request) => void request.body!.getReader(),
  } as const;

  it.each(Object.keys(readFirst))('a body %s: 500 BODY_ALREADY_PARSED with the fix in the message, the handler not run', async (how) => {
    const { seen, outcomes, options } = counting();
    const handler = fetchHandler({ ...options, bodyTimeoutMs: 60_000 });
    const { body, headers } = signedRequest(createTestEvent('invoice.paid'), SECRET);
    const request = new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers });
    await readFirst[how as keyof typeof readFirst](request);
    const response = await handler(request);
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error: { code: 'BODY_ALREADY_PARSED' } });
    expect(seen).toEqual([]);
    expect(outcomes).toEqual([expect.objectContaining({ status: 500, code: 'BODY_ALREADY_PARSED' })]);
    expect(String((outcomes[0]!.error as Error).message)).toContain('request.clone()');
  });

  it('verifies a Request whose clone was read first: the original is untouched', async () => {
    const { seen, options } = counting();
    const handler = fetchHandler(options);
    const event = createTestEvent('invoice.paid');
    const { body, headers } = signedRequest(event, SECRET);
    const request = new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers });
    expect(((await request.clone().json()) as { id: string }).id).toBe(event.id);
    expect((await handler(request)).status).toBe(200);
    expect(seen).toEqual([event.id]);
  });
});

describe('koaWebhooks', () => {
  it('answers 500 BODY_ALREADY_PARSED, with the fix in the message, when a parser before it kept no raw copy — never a misleading 401', async () => {
    const { seen, outcomes, options } = counting();
    const app = new Koa();
    app.use(async (ctx, next) => {
      (ctx.request as { body?: unknown }).body = JSON.parse(await readText(ctx.req)) as unknown;
      await next();
    });
    app.use(koaWebhooks(options));
    const { body, headers } = signedRequest(createTestEvent('invoice.paid'), SECRET);
    const callback = app.callback();
    await withServer((req, res) => void callback(req, res), async (url) => {
      const response = await post(url, body, headers);
      expect(response.status).toBe(500);
      expect(response.body).toMatchObject({ error: { code: 'BODY_ALREADY_PARSED' } });
    });
    expect(seen).toEqual([]);
    expect(String((outcomes[0]!.error as Error).message)).toMatch(/Mount koaWebhooks before the body parser/);
  });

  it("verifies the raw text a parser before it kept (ctx.request.rawBody, as @koa/bodyparser does)", async () => {
    const { seen, options } = counting();
    const app = new Koa();
    app.use(async (ctx, next) => {
      const raw = await readText(ctx.req);
      Object.assign(ctx.request, { rawBody: raw, body: JSON.parse(raw) as unknown });
      await next();
    });
    app.use(koaWebhooks(options));
    const event = createTestEvent('invoice.paid');
    const { body, headers } = signedRequest(event, SECRET);
    const callback = app.callback();
    await withServer((req, res) => void callback(req, res), async (url) => {
      expect((await post(url, body, headers)).status).toBe(200);
    });
    expect(seen).toEqual([event.id]);
  });
});

describe('honoWebhooks', () => {
  it("verifies the copy Hono keeps when a middleware read c.req.json() first; answers 500 BODY_ALREADY_PARSED when one read the raw Request, which keeps none, or holds a reader on it", async () => {
    const { seen, options } = counting();
    const webhooks = honoWebhooks(options);
    const app = new Hono();
    app.post('/webhooks', async (c, next) => {
      if (c.req.header('x-read-as') === 'raw') await c.req.raw.json();
      if (c.req.header('x-read-as') === 'reader') void c.req.raw.body!.getReader();
      if (c.req.header('x-read-as') === 'json') await c.req.json();
      await next();
    }, webhooks);
    const first = createTestEvent('invoice.paid');
    const second = createTestEvent('invoice.paid');
    const server = serveHono({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const parsed = signedRequest(first, SECRET);
      const refused = await post(url, parsed.body, { ...parsed.headers, 'x-read-as': 'raw' });
      expect(refused.status).toBe(500);
      expect(refused.body).toMatchObject({ error: { code: 'BODY_ALREADY_PARSED' } });
      const locked = await post(url, parsed.body, { ...parsed.headers, 'x-read-as': 'reader' });
      expect(locked.status).toBe(500);
      expect(locked.body).toMatchObject({ error: { code: 'BODY_ALREADY_PARSED' } });
      const text = signedRequest(second, SECRET);
      expect((await post(url, text.body, { ...text.headers, 'x-read-as': 'json' })).status).toBe(200);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(seen).toEqual([second.id]);
  });
});

describe('fastifyWebhooks', () => {
  it('exposes the receiver as app.webhookReceiver, closes it with the app, and leaves the JSON parser to the other routes', async () => {
    const { seen, options } = counting();
    const app = Fastify();
    await app.register(fastifyWebhooks, { ...options, path: '/hooks', inbox: { pollIntervalMs: 5 } });
    app.post('/orders', (request, reply) => reply.send({ parsed: request.body }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      const event = createTestEvent('invoice.paid');
      const { body, headers } = signedRequest(event, SECRET);
      const answer = await fetch(`${url}/hooks`, { method: 'POST', headers, body });
      expect(await answer.json()).toMatchObject({ received: true, queued: true });
      await app.webhookReceiver.inbox.drain();
      expect(await app.webhookReceiver.inbox.get(event.id)).toMatchObject({ status: 'done' });
      const orders = await fetch(`${url}/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":1}' });
      expect(await orders.json()).toEqual({ parsed: { n: 1 } });
    } finally {
      await app.close();
    }
    expect(seen).toHaveLength(1);
    // app.close() closed the receiver (onClose): an event stored after it waits, nothing runs it.
    const late = signedRequest(createTestEvent('invoice.paid'), SECRET);
    await app.webhookReceiver.receive({ rawBody: late.body, headers: late.headers, method: 'POST' });
    await expect(app.webhookReceiver.inbox.drain()).rejects.toMatchObject({ code: 'INBOX_CLOSED', details: { pending: 1 } });
    expect(seen).toHaveLength(1);
  });

  it("honours Fastify's prefix: register(fastifyWebhooks, { prefix: '/api' }) serves /api/webhooks, and nothing at /webhooks", async () => {
    const { seen, options } = counting();
    const app = Fastify();
    await app.register(fastifyWebhooks, { ...options, prefix: '/api' });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      const event = createTestEvent('invoice.paid');
      const { body, headers } = signedRequest(event, SECRET);
      expect((await fetch(`${url}/api/webhooks`, { method: 'POST', headers, body })).status).toBe(200);
      expect((await fetch(`${url}/webhooks`, { method: 'POST', headers, body })).status).toBe(404);
      expect(app.printRoutes({ commonPrefix: false })).toContain('/api/webhooks');
      expect(seen).toEqual([event.id]);
    } finally {
      await app.close();
    }
  });

  /** A Fastify app whose logger (pino, as Fastify makes it) writes its JSON lines into `lines`. */
  function loggingApp() {
    const lines: Record<string, unknown>[] = [];
    const stream = { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) };
    return { lines, app: Fastify({ logger: { level: 'info', stream } }) };
  }

  async function deliverTo(app: FastifyInstance, body: string, headers: Record<string, string>) {
    const response = await app.inject({ method: 'POST', url: '/webhooks', payload: body, headers });
    return response.statusCode;
  }

  it("logs through app.log when the app has a logger: the receiver's lines among Fastify's, with component receiver", async () => {
    const { lines, app } = loggingApp();
    const { logger: _off, ...options } = counting().options;
    await app.register(fastifyWebhooks, options);
    try {
      const event = createTestEvent('invoice.paid');
      const { body, headers } = signedRequest(event, SECRET);
      expect(await deliverTo(app, body, headers)).toBe(200);
      expect(await deliverTo(app, body.replace('"invoice.paid"', '"invoice.paid" '), headers)).toBe(401);
    } finally {
      await app.close();
    }
    const receiverLines = lines.filter((line) => line.component === 'receiver');
    expect(receiverLines.map((line) => [line.msg, line.status])).toEqual([
      ['webhook delivery', 200],
      ['webhook delivery', 401],
    ]);
    expect(JSON.stringify(lines)).not.toContain(SECRET);
  });

  it('keeps the logger the options give: logger false is silent in an app that logs', async () => {
    const { lines, app } = loggingApp();
    await app.register(fastifyWebhooks, counting().options);
    try {
      const { body, headers } = signedRequest(createTestEvent('invoice.paid'), SECRET);
      expect(await deliverTo(app, body, headers)).toBe(200);
    } finally {
      await app.close();
    }
    expect(lines.filter((line) => line.component === 'receiver')).toEqual([]);
    expect(lines.length).toBeGreaterThan(0);
  });
});
