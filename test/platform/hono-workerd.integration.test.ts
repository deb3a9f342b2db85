import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPayload } from '../../src/signing/signature.js';
import { createTestEvent } from '../../src/testing/index.js';
import { dist, externalImports } from '../helpers/dist.js';
import { bundleWorker, WorkerdWorker } from '../helpers/workerd.js';

/*
 * acct-webhook/web's honoWebhooks in workerd (the npm package, through miniflare, on 127.0.0.1):
 * a Hono 4 app — the webhook route and a JSON route of its own — bundled with the built package
 * as wrangler bundles a Worker (esbuild, the workerd/worker/browser conditions, no Node.js
 * built-in resolvable), run with and without nodejs_compat. The same handler as acct-webhook/hono's
 * on @hono/node-server (test/adapters/adapters.test.ts runs the contract on both platforms).
 */

const SECRET = 'whsec_honoWorkerd_5c2e8a1f0b7d94';
const MAX_BODY_BYTES = 4096;

/** The Worker: a Hono app; the handler is built once per isolate, on the first request, from the env's secret. */
const WORKER = `
import { Hono } from 'hono';
import { honoWebhooks, memoryStore, Webhooks } from ${JSON.stringify(join(dist, 'web.js'))};

const handled = [];
const handlers = new Webhooks().on('invoice.paid', (event, context) => {
  handled.push({ id: event.id, rawBodyBytes: context.rawBody.byteLength });
});
let webhooks;

const app = new Hono();
app.post('/webhooks', (c) => {
  webhooks ??= honoWebhooks({ secret: c.env.WEBHOOK_SECRET, handlers, store: memoryStore(), maxBodyBytes: ${MAX_BODY_BYTES} });
  return webhooks(c);
});
// A route of the app that parses JSON as Hono apps do: the webhook route does not change it.
app.post('/orders', async (c) => c.json({ parsed: await c.req.json() }));
app.get('/handled', (c) => c.json({ handled, buffer: typeof Buffer, process: typeof process }));

export default app;
`;

let script: string;

beforeAll(async () => {
  script = await bundleWorker(WORKER);
});

describe('the built acct-webhook/web with honoWebhooks', () => {
  it('still imports no module at all: the Hono handler brings no hono, no node: built-in, no SQLite', () => {
    expect([...externalImports('web.js')]).toEqual([]);
  });

  it('bundles into a Hono Worker with no Node.js built-in available', () => {
    expect(script).toContain('honoWebhooks');
    expect(script).not.toMatch(/from\s*["'](node:)?(crypto|fs|module|http|path)["']/);
  });
});

describe.each([
  ['without nodejs_compat', [] as string[]],
  ['with nodejs_compat', ['nodejs_compat']],
])('honoWebhooks in a Hono app on workerd %s', (_name, compatibilityFlags) => {
  let worker: WorkerdWorker;
  let url: URL;

  beforeAll(async () => {
    worker = await WorkerdWorker.start(script, { compatibilityFlags, bindings: { WEBHOOK_SECRET: SECRET } });
    url = worker.url;
  });

  afterAll(async () => {
    await worker?.dispose();
  });

  const deliver = (body: string, headers: Record<string, string>) => worker.post('/webhooks', body, headers);

  const event = createTestEvent('invoice.paid');
  const body = JSON.stringify(event);

  it('runs where Node.js is absent (without the flag) or only partly there (with it)', async () => {
    const state = (await (await fetch(new URL('/handled', url))).json()) as { buffer: string; process: string };
    expect(state.buffer).toBe(compatibilityFlags.length === 0 ? 'undefined' : 'function');
    expect(state.process).toBe(compatibilityFlags.length === 0 ? 'undefined' : 'object');
  });

  it('a signed delivery → 200, the handler run once with the raw bytes; its redelivery → 200 duplicate', async () => {
    const { headers } = signPayload({ payload: body, secret: SECRET });
    const first = await deliver(body, headers);
    expect(first).toEqual({ status: 200, body: { received: true, id: event.id, type: 'invoice.paid', duplicate: false } });
    const again = await deliver(body, signPayload({ payload: body, secret: SECRET }).headers);
    expect(again).toEqual({ status: 200, body: { received: true, id: event.id, type: 'invoice.paid', duplicate: true } });
    const state = (await (await fetch(new URL('/handled', url))).json()) as { handled: unknown[] };
    expect(state.handled).toEqual([{ id: event.id, rawBodyBytes: new TextEncoder().encode(body).byteLength }]);
  });

  it('a tampered body → 401 SIGNATURE_MISMATCH in the error envelope, and nothing runs', async () => {
    const other = createTestEvent('invoice.paid');
    const otherBody = JSON.stringify(other);
    const { headers } = signPayload({ payload: otherBody, secret: SECRET });
    const tampered = otherBody.replace('"invoice.paid"', '"invoice.sent"');
    const answer = await deliver(tampered, headers);
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: { code: 'SIGNATURE_MISMATCH', message: expect.any(String), details: expect.any(Object) } });
    const state = (await (await fetch(new URL('/handled', url))).json()) as { handled: { id: string }[] };
    expect(state.handled.map((run) => run.id)).not.toContain(other.id);
  });

  it(`a body over maxBodyBytes (${MAX_BODY_BYTES}) → 413 PAYLOAD_TOO_LARGE, declared or streamed`, async () => {
    const big = JSON.stringify({ ...event, padding: 'x'.repeat(MAX_BODY_BYTES) });
    const declared = await deliver(big, signPayload({ payload: big, secret: SECRET }).headers);
    expect(declared.status).toBe(413);
    expect(declared.body).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE', details: { max_body_bytes: MAX_BODY_BYTES } } });
    // Two chunks without a content-length, small enough for the socket's buffers (see workerd.integration.test.ts).
    const bytes = new TextEncoder().encode(big);
    const half = Math.ceil(bytes.length / 2);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += half) controller.enqueue(bytes.subarray(offset, offset + half));
        controller.close();
      },
    });
    const response = await fetch(new URL('/webhooks', url), {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'application/json', ...signPayload({ payload: big, secret: SECRET }).headers },
      duplex: 'half',
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it("the app's own JSON route still parses its body", async () => {
    const response = await fetch(new URL('/orders', url), { method: 'POST', body: '{"n":1}', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ parsed: { n: 1 } });
  });

  it('the default logger writes its JSON lines to the console, with no secret', () => {
    const lines = worker.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.some((line) => line.component === 'receiver' && line.eventId === event.id && line.outcome === 'duplicate')).toBe(true);
    expect(lines.some((line) => line.code === 'SIGNATURE_MISMATCH')).toBe(true);
    expect(worker.stderr).not.toContain(SECRET);
  });
});
