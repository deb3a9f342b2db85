import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPayload } from '../../src/signing/signature.js';
import { signStandardWebhook } from '../../src/signing/standard-webhooks.js';
import { createTestEvent } from '../../src/testing/index.js';
import { dist, externalImports } from '../helpers/dist.js';
import { bundleWorker, WorkerdWorker } from '../helpers/workerd.js';

/*
 * acct-webhook/web in workerd, Cloudflare's runtime (the npm package, through miniflare, on
 * 127.0.0.1): the built package bundled into a Worker as wrangler bundles one (esbuild, the
 * workerd/worker/browser conditions, no Node.js built-in resolvable), run with and without
 * nodejs_compat. Without it, a Node.js module anywhere on the path fails the bundle or the
 * Worker's start; Buffer and process are absent too.
 */

const SECRET = 'whsec_workerd_4b1d9c0e7f2a63';
const MAX_BODY_BYTES = 4096;

/** The Worker: one handler per isolate, built on the first request from the env's secret. */
const WORKER = `
import { fetchHandler, memoryStore, Webhooks } from ${JSON.stringify(join(dist, 'web.js'))};

const handled = [];
const handlers = new Webhooks().on('invoice.paid', (event, context) => {
  handled.push({ id: event.id, rawBodyBytes: context.rawBody.byteLength });
});
let handler;

export default {
  async fetch(request, env) {
    if (new URL(request.url).pathname === '/handled') return Response.json({ handled, buffer: typeof Buffer, process: typeof process });
    handler ??= fetchHandler({ secret: env.WEBHOOK_SECRET, handlers, store: memoryStore(), maxBodyBytes: ${MAX_BODY_BYTES} });
    return handler(request);
  },
};
`;

let script: string;

beforeAll(async () => {
  script = await bundleWorker(WORKER);
});

describe('the built acct-webhook/web', () => {
  it('imports no module at all: no node: built-in, no SQLite, no zod, from any chunk it loads', () => {
    expect([...externalImports('web.js')]).toEqual([]);
  });

  it('bundles for a Worker with no Node.js built-in available', () => {
    expect(script.length).toBeGreaterThan(1000);
    expect(script).not.toMatch(/from\s*["'](node:)?(crypto|fs|module|http|path)["']/);
  });
});

describe.each([
  ['without nodejs_compat', [] as string[]],
  ['with nodejs_compat', ['nodejs_compat']],
])('fetchHandler in workerd %s', (_name, compatibilityFlags) => {
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
    const again = await deliver(body, headers);
    expect(again).toEqual({ status: 200, body: { received: true, id: event.id, type: 'invoice.paid', duplicate: true } });
    const state = (await (await fetch(new URL('/handled', url))).json()) as { handled: unknown[] };
    expect(state.handled).toEqual([{ id: event.id, rawBodyBytes: new TextEncoder().encode(body).byteLength }]);
  });

  it('a tampered body → 401 SIGNATURE_MISMATCH in the error envelope', async () => {
    const { headers } = signPayload({ payload: body, secret: SECRET });
    const tampered = body.replace('"invoice.paid"', '"invoice.sent"');
    const answer = await deliver(tampered, headers);
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: { code: 'SIGNATURE_MISMATCH', message: expect.any(String), details: expect.any(Object) } });
  });

  it('a signature made with another secret → 401 SIGNATURE_MISMATCH', async () => {
    const other = createTestEvent('invoice.paid');
    const otherBody = JSON.stringify(other);
    const wrong = await deliver(otherBody, signPayload({ payload: otherBody, secret: 'whsec_someone_else' }).headers);
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ error: { code: 'SIGNATURE_MISMATCH' } });
  });

  it(`a body over maxBodyBytes (${MAX_BODY_BYTES}) → 413 PAYLOAD_TOO_LARGE, declared or streamed`, async () => {
    const big = JSON.stringify({ ...event, padding: 'x'.repeat(MAX_BODY_BYTES) });
    const declared = await deliver(big, signPayload({ payload: big, secret: SECRET }).headers);
    expect(declared.status).toBe(413);
    expect(declared.body).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE', details: { max_body_bytes: MAX_BODY_BYTES } } });
    // Sent in two chunks without a content-length: refused while streaming. Two chunks small
    // enough for the socket's buffers, so that the client has written all before the answer
    // comes (the Worker stops reading at the limit and answers at once).
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

  it('a signed payload that is not a valid event → 422 VALIDATION_ERROR (kept in the quarantine)', async () => {
    const invalid = JSON.stringify({ type: 'invoice.paid', data: { object: { amount: 'ten' } } });
    const answer = await deliver(invalid, signPayload({ payload: invalid, secret: SECRET }).headers);
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
  });

  it('the default logger writes its JSON lines to the console (workerd prints them on stderr), with no secret or signature', () => {
    const lines = worker.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.some((line) => line.component === 'receiver' && line.eventId === event.id && line.outcome === 'duplicate')).toBe(true);
    expect(lines.some((line) => line.code === 'SIGNATURE_MISMATCH')).toBe(true);
    expect(worker.stderr).not.toContain(SECRET);
  });
});

/**
 * A partner app as a Worker: one route, the secret of each delivery chosen from the Worker's
 * bindings by the business its body names (a KV or D1 lookup takes the same place), the keys
 * imported with WebCrypto per secret. The platform's scheme and Standard Webhooks both.
 */
const PARTNER_SECRETS = {
  biz_alpine: `whsec_${Buffer.alloc(32, 3).toString('base64')}`,
  biz_danube: `whsec_${Buffer.alloc(32, 5).toString('base64')}`,
};

const PARTNER_WORKER = `
import { fetchHandler, memoryStore } from ${JSON.stringify(join(dist, 'web.js'))};

let handler;

export default {
  async fetch(request, env) {
    handler ??= fetchHandler({
      scheme: 'any',
      store: memoryStore(),
      secret: async ({ businessId, path }) => {
        if (businessId === 'biz_broken') throw new Error('lookup failed');
        return path === '/partner/webhooks' ? JSON.parse(env.PARTNER_SECRETS)[businessId] : undefined;
      },
    });
    return handler(request);
  },
};
`;

describe('a secret function in workerd without nodejs_compat', () => {
  let worker: WorkerdWorker;

  beforeAll(async () => {
    worker = await WorkerdWorker.start(await bundleWorker(PARTNER_WORKER), { compatibilityFlags: [], bindings: { PARTNER_SECRETS: JSON.stringify(PARTNER_SECRETS) } });
  });

  afterAll(async () => {
    await worker?.dispose();
  });

  const deliveryOf = (business: string) => {
    const event = createTestEvent('invoice.paid', { business_id: business });
    return { event, body: JSON.stringify(event) };
  };

  it("accepts each business's delivery under its own secret, with either scheme, and refuses the other's", async () => {
    const alpine = deliveryOf('biz_alpine');
    expect((await worker.post('/partner/webhooks', alpine.body, signPayload({ payload: alpine.body, secret: PARTNER_SECRETS.biz_alpine }).headers)).status).toBe(200);
    const danube = deliveryOf('biz_danube');
    const standard = signStandardWebhook({ id: danube.event.id, payload: danube.body, secret: PARTNER_SECRETS.biz_danube });
    expect((await worker.post('/partner/webhooks', danube.body, standard.headers)).status).toBe(200);
    const forged = deliveryOf('biz_danube');
    const refused = await worker.post('/partner/webhooks', forged.body, signPayload({ payload: forged.body, secret: PARTNER_SECRETS.biz_alpine }).headers);
    expect(refused).toMatchObject({ status: 401, body: { error: { code: 'SIGNATURE_MISMATCH' } } });
  });

  it('answers an unknown business 401 UNKNOWN_BUSINESS (the path is the lookup’s too) and a failing lookup 503', async () => {
    const alpine = deliveryOf('biz_alpine');
    const elsewhere = await worker.post('/other/webhooks', alpine.body, signPayload({ payload: alpine.body, secret: PARTNER_SECRETS.biz_alpine }).headers);
    expect(elsewhere).toMatchObject({ status: 401, body: { error: { code: 'UNKNOWN_BUSINESS', details: { business_id: 'biz_alpine' } } } });
    const broken = deliveryOf('biz_broken');
    const failed = await worker.post('/partner/webhooks', broken.body, signPayload({ payload: broken.body, secret: PARTNER_SECRETS.biz_alpine }).headers);
    expect(failed).toMatchObject({ status: 503, body: { error: { code: 'SECRET_UNAVAILABLE' } } });
    expect(worker.stderr).not.toContain(PARTNER_SECRETS.biz_alpine);
  });
});
