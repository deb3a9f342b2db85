import * as ed from '@noble/ed25519';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { describe, expect, it } from 'vitest';
import { createReceiver, memoryStore, signStandardWebhook, Webhooks, type HandlerContext, type WebhookHandlerOptions } from '../../src/index.js';
import { createTestEvent, signedHeaders } from '../../src/testing/index.js';
import { adapters, post } from '../helpers/adapters.js';
import { withServer } from '../helpers/server.js';

/*
 * The receiver's `scheme` option on every adapter, with deliveries signed by libraries nobody
 * here wrote: the reference `standardwebhooks` package and `svix` for `v1`, `@noble/ed25519`
 * for `v1a`. Tampered or stale ones are refused with the same codes as the platform's scheme.
 */

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const OLD_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const SEED = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const PUBLIC_KEY = `whpk_${Buffer.from(await ed.getPublicKeyAsync(SEED)).toString('base64')}`;
const NOW_MS = Math.floor(Date.now() / 1000) * 1000;
const NOW = new Date(NOW_MS);
const seconds = NOW_MS / 1000;

type Headers = Record<string, string>;

function referenceSigned(id: string, body: string, secret = SECRET, at = NOW): Headers {
  return { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new StandardWebhook(secret).sign(id, at, body) };
}

function svixSigned(id: string, body: string): Headers {
  return { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(seconds), 'webhook-signature': new SvixWebhook(SECRET).sign(id, NOW, body) };
}

async function nobleSigned(id: string, body: string): Promise<Headers> {
  const signature = await ed.signAsync(new TextEncoder().encode(`${id}.${seconds}.${body}`), SEED);
  return { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(seconds), 'webhook-signature': `v1a,${Buffer.from(signature).toString('base64')}` };
}

function errorCode(response: { body: Record<string, unknown> }): unknown {
  return (response.body.error as { code?: unknown } | undefined)?.code;
}

describe.each(adapters)('$name with Standard Webhooks', (adapter) => {
  function serve(extra: Partial<WebhookHandlerOptions> = {}) {
    const seen: Pick<HandlerContext, 'scheme' | 'signatureScheme' | 'secretIndex'>[] = [];
    const hooks = new Webhooks().onAny((_event, { scheme, signatureScheme, secretIndex }) => {
      seen.push({ scheme, signatureScheme, secretIndex });
    });
    const served = adapter.serve({ secret: SECRET, scheme: 'standard-webhooks', handlers: hooks, store: memoryStore(), logger: false, clock: () => NOW_MS, ...extra });
    return { ...served, seen };
  }

  it('accepts a delivery signed by the reference standardwebhooks package, once: the resend is a duplicate', async () => {
    const { listener, seen } = serve();
    const event = createTestEvent('invoice.paid');
    const body = JSON.stringify(event);
    await withServer(listener, async (url) => {
      const first = await post(url, body, referenceSigned(event.id, body));
      expect(first).toMatchObject({ status: 200, body: { received: true, id: event.id, duplicate: false } });
      const again = await post(url, body, referenceSigned(event.id, body));
      expect(again).toMatchObject({ status: 200, body: { duplicate: true } });
    });
    expect(seen).toEqual([{ scheme: 'standard-webhooks', signatureScheme: 'v1', secretIndex: 0 }]);
  });

  it("accepts svix's signature, and @noble/ed25519's v1a under the whpk_ public key", async () => {
    const { listener, seen } = serve({ secret: [SECRET, PUBLIC_KEY] });
    const first = createTestEvent('invoice.paid');
    const second = createTestEvent('customer.created');
    await withServer(listener, async (url) => {
      expect((await post(url, JSON.stringify(first), svixSigned(first.id, JSON.stringify(first)))).status).toBe(200);
      expect((await post(url, JSON.stringify(second), await nobleSigned(second.id, JSON.stringify(second)))).status).toBe(200);
    });
    expect(seen).toEqual([
      { scheme: 'standard-webhooks', signatureScheme: 'v1', secretIndex: 0 },
      { scheme: 'standard-webhooks', signatureScheme: 'v1a', secretIndex: 1 },
    ]);
  });

  it('accepts a header with several signatures when any one is valid, skipping unknown versions', async () => {
    const { listener, seen } = serve({ secret: OLD_SECRET });
    const event = createTestEvent('invoice.paid');
    const body = JSON.stringify(event);
    const rotated = signStandardWebhook({ id: event.id, payload: body, secret: [SECRET, OLD_SECRET], timestamp: seconds }).signature;
    await withServer(listener, async (url) => {
      const response = await post(url, body, { ...referenceSigned(event.id, body), 'webhook-signature': `v9,AAAA ${rotated}` });
      expect(response.status).toBe(200);
    });
    expect(seen).toEqual([{ scheme: 'standard-webhooks', signatureScheme: 'v1', secretIndex: 0 }]);
  });

  const event = createTestEvent('invoice.paid');
  const body = JSON.stringify(event);
  const good = referenceSigned(event.id, body);
  const rejected: [string, () => { body: string; headers: Headers } | Promise<{ body: string; headers: Headers }>, number, string][] = [
    ['tampered body (reference-signed)', () => ({ body: body.replace('16950', '16951'), headers: good }), 401, 'SIGNATURE_MISMATCH'],
    ['tampered body (svix-signed)', () => ({ body: body.replace('16950', '16951'), headers: svixSigned(event.id, body) }), 401, 'SIGNATURE_MISMATCH'],
    ['tampered body (v1a, noble-signed)', async () => ({ body: body.replace('16950', '16951'), headers: await nobleSigned(event.id, body) }), 401, 'SIGNATURE_MISMATCH'],
    ['wrong secret', () => ({ body, headers: referenceSigned(event.id, body, OLD_SECRET) }), 401, 'SIGNATURE_MISMATCH'],
    ['301 s old', () => ({ body, headers: referenceSigned(event.id, body, SECRET, new Date(NOW_MS - 301_000)) }), 401, 'TIMESTAMP_TOO_OLD'],
    ['301 s ahead', () => ({ body, headers: referenceSigned(event.id, body, SECRET, new Date(NOW_MS + 301_000)) }), 401, 'TIMESTAMP_IN_FUTURE'],
    ['only an unknown version', () => ({ body, headers: { ...good, 'webhook-signature': 'v2,' + good['webhook-signature']!.slice(3) } }), 401, 'SIGNATURE_MISMATCH'],
    ['no webhook-signature', () => ({ body, headers: { ...good, 'webhook-signature': '' } }), 400, 'MISSING_SIGNATURE'],
    ['a signature without its version', () => ({ body, headers: { ...good, 'webhook-signature': good['webhook-signature']!.slice(3) } }), 400, 'MALFORMED_SIGNATURE'],
    ['no webhook-id', () => ({ body, headers: { ...good, 'webhook-id': '' } }), 400, 'MISSING_WEBHOOK_ID'],
    ['malformed webhook-timestamp', () => ({ body, headers: { ...good, 'webhook-timestamp': 'yesterday' } }), 400, 'MALFORMED_TIMESTAMP'],
    ['a webhook-id that is not the event id', () => ({ body, headers: referenceSigned('msg_other', body) }), 400, 'WEBHOOK_ID_MISMATCH'],
  ];

  it.each(rejected.map(([name, request, status, code]) => [name, status, code, request] as const))('refuses %s → %i %s, handler not run', async (_name, status, code, request) => {
    const { listener, seen } = serve();
    const { body: sent, headers } = await request();
    await withServer(listener, async (url) => {
      const response = await post(url, sent, headers);
      expect(response.status).toBe(status);
      expect(errorCode(response)).toBe(code);
      expect(response.body).toMatchObject({ error: { message: expect.any(String), details: expect.any(Object) } });
    });
    expect(seen).toEqual([]);
  });

  it("with scheme: 'any' takes either scheme by the headers present; the default 'svc' does not read webhook-signature", async () => {
    const any = serve({ scheme: 'any' });
    const svc = serve({ scheme: undefined });
    const first = createTestEvent('invoice.paid');
    const second = createTestEvent('invoice.paid');
    await withServer(any.listener, async (url) => {
      expect((await post(url, JSON.stringify(first), signedHeaders(JSON.stringify(first), SECRET, { timestamp: seconds }))).status).toBe(200);
      expect((await post(url, JSON.stringify(second), referenceSigned(second.id, JSON.stringify(second)))).status).toBe(200);
    });
    expect(any.seen.map((context) => context.scheme)).toEqual(['svc', 'standard-webhooks']);
    await withServer(svc.listener, async (url) => {
      const response = await post(url, JSON.stringify(second), referenceSigned(second.id, JSON.stringify(second)));
      expect(response.status).toBe(400);
      expect(errorCode(response)).toBe('MISSING_SIGNATURE');
    });
    expect(svc.seen).toEqual([]);
  });

  it('in inbox mode queues a Standard Webhooks delivery, keeps webhook-id, dedupes on it and hands the scheme to the handler', async () => {
    const { listener, receiver, seen } = serve({ inbox: { pollIntervalMs: 5 } });
    const queued = createTestEvent('invoice.paid');
    const payload = JSON.stringify(queued);
    try {
      await withServer(listener, async (url) => {
        expect(await post(url, payload, await nobleSigned(queued.id, payload))).toMatchObject({ status: 401 });
        expect(await post(url, payload, referenceSigned(queued.id, payload))).toMatchObject({ status: 200, body: { queued: true, duplicate: false } });
        expect(await post(url, payload, svixSigned(queued.id, payload))).toMatchObject({ status: 200, body: { duplicate: true } });
      });
      await receiver.inbox.drain();
      expect((await receiver.inbox.get(queued.id))?.headers).toMatchObject({ 'webhook-id': queued.id, 'webhook-timestamp': String(seconds) });
      expect(seen).toEqual([{ scheme: 'standard-webhooks', signatureScheme: 'v1', secretIndex: 0 }]);
    } finally {
      await receiver.close();
    }
  });
});

describe('the scheme option when the factory runs', () => {
  it('refuses an unknown scheme, and a secret Standard Webhooks cannot decode, naming the option', () => {
    expect(() => createReceiver({ secret: SECRET, scheme: 'svix' as never, store: memoryStore(), logger: false })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: expect.objectContaining({ option: 'scheme' }) }),
    );
    expect(() => createReceiver({ secret: 'whsec_not base64!', scheme: 'standard-webhooks', store: memoryStore(), logger: false })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: expect.objectContaining({ option: 'secret' }) }),
    );
    expect(() => createReceiver({ secret: 'whsec_not base64!', store: memoryStore(), logger: false })).not.toThrow();
  });
});
