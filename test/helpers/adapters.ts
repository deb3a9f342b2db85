/*
 * The adapter contract table: every adapter of the receiver, served as a node:http listener on
 * 127.0.0.1, so that test/adapters/adapters.test.ts (and the hostile-transport suite) run the same
 * cases — the answer table of docs/receiver.md, direct and inbox mode, 413, 408, BODY_ALREADY_PARSED
 * — against each of them. To add a framework (NestJS, Next.js, workerd), add one `Adapter` row to
 * `adapters` below: `serve(options)` builds the real framework app with the adapter mounted at
 * `/webhooks` and a JSON route of its own at `POST /app/echo` (which must answer the parsed body),
 * and returns its listener and its receiver; `routes` says whether the adapter itself passes other
 * paths on. A framework that starts asynchronously answers once it is ready (see fastifyAdapter).
 */
import { Server, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { Body, Controller, Module, Post, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import express from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import { fastifyWebhooks } from '../../src/adapters/fastify/index.js';
import { honoWebhooks } from '../../src/adapters/hono/index.js';
import { honoWebhooks as webHonoWebhooks } from '../../src/web.js';
import { koaWebhooks } from '../../src/adapters/koa/index.js';
import { AcctWebhookModule, WEBHOOK_RECEIVER } from '../../src/adapters/nestjs/index.js';
import { fetchHandler, nodeHandler, webhookHandler, type Receiver, type WebhookHandlerOptions } from '../../src/index.js';
import { fetchListener } from './fetch-server.js';

/** One adapter served as a node:http listener, and the receiver behind it. */
export interface Served {
  listener: RequestListener;
  receiver: Receiver;
}

export interface Adapter {
  name: string;
  /** Whether the adapter itself routes by path (the Fetch handler leaves routing to the framework). */
  routes: boolean;
  serve(options: WebhookHandlerOptions): Served;
}

/** `app.use(webhookHandler(…))` in an Express app that has a route of its own too. */
function expressAdapter(name: string, createApp: typeof express): Adapter {
  return {
    name,
    routes: true,
    serve(options) {
      const handler = webhookHandler(options);
      const app = createApp();
      app.use(handler);
      app.get('/health', (_req, res) => {
        res.json({ from: 'app' });
      });
      app.post('/app/echo', createApp.json(), (req, res) => {
        res.json({ parsed: req.body as unknown });
      });
      return { listener: app, receiver: handler.receiver };
    },
  };
}

/**
 * `app.register(fastifyWebhooks, …)` beside a JSON route of the app. Fastify builds its plugins
 * when it is ready, so the listener waits for that, and the receiver is reached through the app
 * once it is (`app.webhookReceiver`).
 */
const fastifyAdapter: Adapter = {
  name: 'fastify',
  routes: true,
  serve(options) {
    let handle: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
    const app = Fastify({ serverFactory: (handler) => ((handle = handler), createNodeServer()) });
    void app.register(fastifyWebhooks, options);
    app.post('/app/echo', (request, reply) => reply.send({ parsed: request.body }));
    const ready = app.ready();
    const listener: RequestListener = (req, res) => void ready.then(() => handle!(req, res));
    const receiver = new Proxy({} as Receiver, { get: (_target, key) => Reflect.get(app.webhookReceiver, key) as unknown });
    return { listener, receiver };
  },
};

/** The server Fastify would make; the test's own server calls Fastify's handler instead. */
function createNodeServer(): Server {
  return new Server();
}

/**
 * `app.post('/webhooks', honoWebhooks(…))` on @hono/node-server, beside a JSON route of the app:
 * acct-webhook/hono's handler (node:crypto), or acct-webhook/web's (WebCrypto, what a Worker runs).
 * The workerd runtime itself is test/platform/hono-workerd.integration.test.ts: this table reaches the
 * receiver in process (inbox, clock), which a Worker's isolate does not allow.
 */
function honoAdapter(name: string, build: typeof honoWebhooks): Adapter {
  return {
    name,
    routes: false,
    serve(options) {
      const handler = build(options);
      const app = new Hono();
      app.all('/webhooks', handler);
      app.post('/app/echo', async (c) => c.json({ parsed: await c.req.json<unknown>() }));
      const listen = getRequestListener(app.fetch);
      return { listener: (req, res) => void listen(req, res), receiver: handler.receiver };
    },
  };
}

/** `app.use(koaWebhooks(…))` before the app's own JSON body reading. */
const koaAdapter: Adapter = {
  name: 'koa',
  routes: true,
  serve(options) {
    const middleware = koaWebhooks(options);
    const app = new Koa();
    app.use(middleware);
    app.use(async (ctx, next) => {
      if (ctx.path !== '/app/echo') {
        await next();
        return;
      }
      ctx.body = { parsed: JSON.parse(await readText(ctx.req)) as unknown };
    });
    const callback = app.callback();
    return { listener: (req, res) => void callback(req, res), receiver: middleware.receiver };
  },
};

/** The app's own JSON route: Nest's body parser parses it, as in any Nest app. */
@Controller('app')
class EchoController {
  @Post('echo')
  echo(@Body() body: unknown) {
    return { parsed: body };
  }
}

/** A Nest app with the module imported beside a controller of its own. */
export function nestAppModule(webhooks: DynamicModule, providers: unknown[] = []) {
  @Module({ imports: [webhooks], controllers: [EchoController], providers: providers as never[] })
  class AppModule {}
  return AppModule;
}

/**
 * `AcctWebhookModule.forRoot(…)` in a NestJS app on the Express or the Fastify platform, beside
 * the app's own JSON route, with Nest's body parsing as it comes (no `rawBody`). Nest creates the
 * app asynchronously: the listener answers once `app.init()` is done, with the platform's own
 * handler (Express's app; Fastify's, through its serverFactory), and the receiver is the module's.
 */
function nestAdapter(platform: 'express' | 'fastify'): Adapter {
  return {
    name: `nestjs (${platform})`,
    routes: true,
    serve(options) {
      let handle: RequestListener | undefined;
      let receiver: Receiver | undefined;
      const adapter =
        platform === 'express' ? new ExpressAdapter() : new FastifyAdapter({ serverFactory: (handler: RequestListener) => ((handle = handler), createNodeServer()) });
      const ready = (async () => {
        const app = await NestFactory.create(nestAppModule(AcctWebhookModule.forRoot(options)), adapter, { logger: false, abortOnError: false });
        receiver = app.get<Receiver>(WEBHOOK_RECEIVER);
        await app.init();
        const instance: unknown = app.getHttpAdapter().getInstance();
        if (platform === 'express') handle = instance as RequestListener;
        else await (instance as { ready(): Promise<unknown> }).ready();
      })();
      const listener: RequestListener = (req, res) => void ready.then(() => handle!(req, res));
      return { listener, receiver: new Proxy({} as Receiver, { get: (_target, key) => Reflect.get(receiver!, key) as unknown }) };
    },
  };
}

/** The whole body as text (the apps' own routes in this table: no body parser package needed). */
export async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

export const adapters: Adapter[] = [
  expressAdapter('express (app.use)', express),
  // The adapter imports no Express: it works with what Express 4 and 5 both give a middleware.
  expressAdapter('express 4 (app.use)', express4),
  {
    name: 'node:http',
    routes: true,
    serve(options) {
      const handler = nodeHandler(options);
      const listener: RequestListener = (req, res) => {
        if (req.url !== '/app/echo') return handler(req, res);
        void readText(req).then((text) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ parsed: JSON.parse(text) as unknown })));
      };
      return { listener, receiver: handler.receiver };
    },
  },
  {
    name: 'fetch',
    routes: false,
    serve(options) {
      const handler = fetchHandler(options);
      const app = async (request: Request): Promise<Response> =>
        new URL(request.url).pathname === '/app/echo' ? Response.json({ parsed: await request.json() }) : handler(request);
      return { listener: fetchListener(app), receiver: handler.receiver };
    },
  },
  fastifyAdapter,
  honoAdapter('hono (node-server)', honoWebhooks),
  honoAdapter('hono (acct-webhook/web: WebCrypto, on node-server)', webHonoWebhooks),
  koaAdapter,
  nestAdapter('express'),
  nestAdapter('fastify'),
];

/** POSTs to `${url}/webhooks` and reads the JSON answer. */
export async function post(url: string, body: string | Buffer, headers: Record<string, string>) {
  const response = await fetch(`${url}/webhooks`, { method: 'POST', body, headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) as Record<string, never> };
}
