import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { memoryStore, type IdempotencyStore } from 'acct-webhook';
import { createTestEvent, signedHeaders, signedRequest } from 'acct-webhook/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp, type WebhookApp } from '../src/app.js';
import { createWebhooks } from '../src/handlers/index.js';

// A secret for the tests only; the server reads the real one from WEBHOOK_SECRET.
const SECRET = 'whsec_only_for_the_tests_0000000000';
/** The platform's window: a timestamp further than this from now is refused. */
const TOLERANCE_SECONDS = 300;

describe('POST {{webhookPath}}', () => {
  let app: WebhookApp;
  let url: string;
  /** The ids of the events the handlers ran for, in order. */
  let handled: string[];

  beforeEach(async () => {
    handled = [];
    // The real handlers, plus one that records what ran, so a test sees what a delivery did.
    const webhooks = createWebhooks().onAny((event) => {
      handled.push(event.id);
    });
    // A fresh in-memory store per test: nothing handled yet, and no database needed.
    app = createApp({ secret: SECRET, store: memoryStore(), webhooks, logger: false });
    // As the server does before it listens: the store opened, the framework's routes loaded.
    await app.ready();
    // A real HTTP server on a free port, exactly as the platform reaches it.
    app.server.listen(0, '127.0.0.1');
    await once(app.server, 'listening');
    const { port } = app.server.address() as AddressInfo;
    url = `http://127.0.0.1:${port}{{webhookPath}}`;
  });

  afterEach(async () => {
    await app.close();
  });

  function deliver(request: { body: string; headers: Record<string, string> }): Promise<Response> {
    return fetch(url, { method: 'POST', body: request.body, headers: request.headers });
  }

  it('runs the handlers for a signed event and acknowledges it', async () => {
    const event = createTestEvent('{{sampleEvent}}');

    const response = await deliver(signedRequest(event, SECRET));

    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ received: true, id: event.id, duplicate: false });
    expect(handled).toEqual([event.id]);
  });

  it('rejects a signature made with another secret (401) and runs nothing', async () => {
    const event = createTestEvent('{{sampleEvent}}');

    const response = await deliver(signedRequest(event, 'whsec_someone_else_000000000000000'));

    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { code: 'SIGNATURE_MISMATCH' } });
    expect(handled).toEqual([]);
  });

  it('runs the handlers of a redelivered event only once', async () => {
    const event = createTestEvent('{{sampleEvent}}');

    const first = await deliver(signedRequest(event, SECRET));
    // The platform retries with a fresh signature, but the same event id.
    const second = await deliver(signedRequest(event, SECRET));

    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(await second.json()).toMatchObject({ id: event.id, duplicate: true });
    expect(handled).toEqual([event.id]);
  });

  it('rejects a stale timestamp (401), so a captured request cannot be replayed later', async () => {
    const body = JSON.stringify(createTestEvent('{{sampleEvent}}'));
    const tenMinutesAgo = Math.floor(Date.now() / 1000) - 2 * TOLERANCE_SECONDS;

    const response = await deliver({ body, headers: signedHeaders(body, SECRET, { timestamp: tenMinutesAgo }) });

    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { code: 'TIMESTAMP_TOO_OLD' } });
    expect(handled).toEqual([]);
  });
});

describe('GET /health and GET /ready', () => {
  let app: WebhookApp | undefined;

  afterEach(async () => {
    await app?.close();
  });

  /** The app on a free port with `store`; the URL of `path` on it. */
  async function serve(store: IdempotencyStore): Promise<(path: string) => string> {
    app = createApp({ secret: SECRET, store, webhooks: createWebhooks(), logger: false });
    await app.ready();
    app.server.listen(0, '127.0.0.1');
    await once(app.server, 'listening');
    const { port } = app.server.address() as AddressInfo;
    return (path) => `http://127.0.0.1:${port}${path}`;
  }

  it('answers 200 on both while the process is up and the store answers', async () => {
    const url = await serve(memoryStore());

    const health = await fetch(url('/health'));
    const ready = await fetch(url('/ready'));

    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ok' }]);
  });

  it('answers 503 on /ready with the reason when the store fails, 200 on /health still', async () => {
    const store = memoryStore();
    // A store whose database went away: every read fails.
    const down = new Proxy(store, {
      get: (target, key) => (key === 'quarantine' ? { get: () => Promise.reject(new Error('the database is down')) } : Reflect.get(target, key)),
    });
    const url = await serve(down);

    const ready = await fetch(url('/ready'));

    expect([ready.status, await ready.json()]).toEqual([503, { status: 'unavailable', reason: 'the database is down' }]);
    expect((await fetch(url('/health'))).status).toBe(200);
  });

  it('needs no signature, and takes nothing but GET', async () => {
    const url = await serve(memoryStore());

    expect((await fetch(url('/ready'), { method: 'POST' })).status).toBe(404);
  });
});
