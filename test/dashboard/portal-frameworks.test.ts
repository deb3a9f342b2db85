import { getRequestListener } from '@hono/node-server';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import type { RequestListener } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createPortalLink, portalFetchHandler, portalNodeHandler, type PortalOptions } from '../../src/dashboard/index.js';
import { createTestEvent } from '../../src/testing/index.js';
import { Receiver, testDispatcher } from '../dispatcher/fixtures.js';
import { close, listen } from '../helpers/server.js';
import { Client } from './fixtures.js';
import { PORTAL_BASE, PORTAL_KEY } from './portal-fixtures.js';

/*
 * The portal mounted in the platform's own app under its path, in each framework's own way:
 * Hono routes the Fetch handler, Fastify hands a hijacked reply's raw objects to the node:http
 * handler, Koa does the same with `ctx.respond = false`. Each app keeps its own route beside it.
 * In every one a business opens its link, reads only its own registrations and acts on them.
 */

type Mount = (options: PortalOptions) => RequestListener | Promise<RequestListener>;

const MOUNTS: readonly [string, Mount][] = [
  ['Hono (portalFetchHandler)', (options) => {
    const portal = portalFetchHandler(options);
    const app = new Hono();
    app.get('/app', (c) => c.text('the app'));
    app.all(`${PORTAL_BASE}/*`, (c) => portal(c.req.raw));
    const listener = getRequestListener(app.fetch);
    return (request, response) => void listener(request, response);
  }],
  ['Fastify (portalNodeHandler, hijacked reply)', async (options) => {
    const portal = portalNodeHandler(options);
    const app = Fastify();
    // The portal reads its own form bodies: Fastify must leave them unparsed.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, _payload, done) => done(null));
    app.get('/app', (_request, reply) => reply.send('the app'));
    app.all(`${PORTAL_BASE}/*`, (request, reply) => {
      reply.hijack();
      void portal(request.raw, reply.raw);
    });
    await app.ready();
    onTestFinished(() => app.close());
    return (request, response) => app.routing(request, response);
  }],
  ['Koa (portalNodeHandler, ctx.respond = false)', (options) => {
    const portal = portalNodeHandler(options);
    const app = new Koa();
    app.use(async (ctx, next) => {
      if (!ctx.path.startsWith(`${PORTAL_BASE}/`)) {
        await next();
        return;
      }
      ctx.respond = false;
      portal(ctx.req, ctx.res);
    });
    app.use((ctx) => {
      if (ctx.path === '/app') ctx.body = 'the app';
    });
    const callback = app.callback();
    return (request, response) => void callback(request, response);
  }],
];

describe.each(MOUNTS)('the portal in %s', (_name, mount) => {
  it('opens a link, lists only the business’s registrations, 404s another’s, sends a test delivery; the app’s own route still answers', async () => {
    const dispatcher = testDispatcher();
    const target = new Receiver();
    const targetServer = await listen(target.listener);
    onTestFinished(() => close(targetServer.server));
    const own = await dispatcher.webhooks.create({ business_id: 'biz_a', url: `${targetServer.url}/a`, events: ['invoice.*'] });
    const other = await dispatcher.webhooks.create({ business_id: 'biz_b', url: `${targetServer.url}/b?marker=BIZBMARK`, events: ['invoice.*'] });
    await dispatcher.emit(createTestEvent('invoice.paid', { business_id: 'biz_a' }));
    await dispatcher.runDue();
    const server = await listen(await mount({ dispatcher, key: PORTAL_KEY, basePath: PORTAL_BASE, logger: false }));
    onTestFinished(() => close(server.server));

    const client = new Client(server.url);
    const link = createPortalLink({ key: PORTAL_KEY, business_id: 'biz_a', baseUrl: `${server.url}${PORTAL_BASE}` });
    const opened = await client.get(link.slice(server.url.length));
    expect(opened.status).toBe(200);
    expect(opened.text).toContain(`${targetServer.url}/a`);
    expect(opened.text).not.toContain('BIZBMARK');
    expect((await client.get(`${PORTAL_BASE}/webhooks/${other.id}`)).status).toBe(404);
    const tested = await client.post(`${PORTAL_BASE}/webhooks/${own.id}/test`);
    expect(tested.status).toBe(200);
    expect(tested.text).toContain('A test delivery was sent');
    expect(target.requests.filter((request) => request.path === '/a')).toHaveLength(2);
    expect(await (await fetch(`${server.url}/app`)).text()).toBe('the app');
  });
});
