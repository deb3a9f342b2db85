import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { dashboardFetchHandler } from '../../src/dashboard/index.js';
import { fetchHandler, memoryStore, Webhooks } from '../../src/index.js';
import { createTestEvent, signedRequest } from '../../src/testing/index.js';
import { testDispatcher } from '../dispatcher/fixtures.js';
import { fetchListener } from '../helpers/fetch-server.js';
import { close, listen, type RunningServer } from '../helpers/server.js';

const SECRET = 'whsec_honoReceiverTest00000000000000';

// The README's and docs/receiver.md's wiring, in real Hono: the handler built once, Hono's raw
// Request handed to it. Hono's app is served over HTTP on 127.0.0.1 as its Node.js adapter does.
describe('fetchHandler and dashboardFetchHandler in a Hono app', () => {
  let running: RunningServer | undefined;
  afterEach(async () => {
    if (running) await close(running.server);
    running = undefined;
  });

  it('a signed delivery runs the handler once, a redelivery is a duplicate, a tampered body 401 with the envelope', async () => {
    const runs: string[] = [];
    const hooks = new Webhooks().on('invoice.paid', (event) => void runs.push(event.id));
    const handle = fetchHandler({ secret: SECRET, handlers: hooks, store: memoryStore(), logger: false });
    const app = new Hono();
    app.post('/webhooks', (c) => handle(c.req.raw));
    running = await listen(fetchListener((request) => Promise.resolve(app.fetch(request))));

    const event = createTestEvent('invoice.paid');
    const { body, headers } = signedRequest(event, SECRET);
    const post = async (payload: string) => {
      const response = await fetch(`${running!.url}/webhooks`, { method: 'POST', body: payload, headers: { ...headers } });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    expect(await post(body)).toEqual({ status: 200, body: { received: true, id: event.id, type: 'invoice.paid', duplicate: false } });
    expect(await post(body)).toMatchObject({ status: 200, body: { duplicate: true } });
    const tampered = await post(body.replace('"invoice.paid"', '"invoice.sent"'));
    expect(tampered).toEqual({ status: 401, body: { error: { code: 'SIGNATURE_MISMATCH', message: expect.any(String), details: expect.anything() } } });
    expect(runs).toEqual([event.id]);
    // Hono answers its own 404 for what it does not route.
    expect((await fetch(`${running.url}/elsewhere`, { method: 'POST' })).status).toBe(404);
  });

  it('the dashboard mounted on a path of the app answers its pages, and refuses who is not authorized', async () => {
    const board = dashboardFetchHandler({ dispatcher: testDispatcher(), basePath: '/admin/webhooks', authorize: (request) => request.headers.get('x-admin') === 'yes' });
    const app = new Hono();
    app.all('/admin/webhooks/*', (c) => board(c.req.raw));
    app.all('/admin/webhooks', (c) => board(c.req.raw));
    running = await listen(fetchListener((request) => Promise.resolve(app.fetch(request))));

    const page = await fetch(`${running.url}/admin/webhooks`, { headers: { 'x-admin': 'yes' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('</html>');
    expect((await fetch(`${running.url}/admin/webhooks`)).status).toBe(403);
  });
});
