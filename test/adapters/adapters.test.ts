import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  memoryStore,
  Webhooks,
  type IdempotencyStore,
  type WebhookEvent,
  type WebhookHandlerOptions,
} from '../../src/index.js';
import { createTestEvent, signedHeaders, signedRequest } from '../../src/testing/index.js';
import { adapters, post } from '../helpers/adapters.js';
import { withServer } from '../helpers/server.js';

const SECRET = 'whsec_adapterContractSecret0000000000';
const OLD_SECRET = 'whsec_adapterContractOldSecret000000';

/** Records every handler run, by event id; `behaviour` decides what a run does. */
function recorder(behaviour: (event: WebhookEvent, run: number, signal: AbortSignal) => Promise<void> | void = () => undefined) {
  const runs = new Map<string, number>();
  const hooks = new Webhooks().onAny(async (event, { signal }) => {
    const run = (runs.get(event.id) ?? 0) + 1;
    runs.set(event.id, run);
    await behaviour(event, run, signal);
  });
  return { hooks, runs };
}


function errorCode(response: { body: Record<string, unknown> }): unknown {
  return (response.body.error as { code?: unknown } | undefined)?.code;
}

/** The receivers of the window cases run on this fixed clock: a second that ticks over on a busy machine cannot move a boundary. */
const NOW_MS = Math.floor(Date.now() / 1000) * 1000;
const nowSeconds = () => NOW_MS / 1000;

describe.each(adapters)('$name', (adapter) => {
  function serve(extra: Partial<WebhookHandlerOptions> & { store?: IdempotencyStore } = {}) {
    const { hooks, runs } = recorder();
    return { ...adapter.serve({ secret: SECRET, handlers: hooks, store: memoryStore(), logger: false, ...extra }), runs };
  }

  it('handles a signed event once: 200, then 200 with duplicate: true and no second run', async () => {
    const { listener, runs } = serve();
    const { body, headers } = signedRequest(createTestEvent('invoice.paid'), SECRET);
    await withServer(listener, async (url) => {
      const first = await post(url, body, headers);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ received: true, type: 'invoice.paid', duplicate: false });
      const again = await post(url, body, signedHeaders(body, SECRET));
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ received: true, duplicate: true });
    });
    expect([...runs.values()]).toEqual([1]);
  });

  it('in inbox mode answers 200 queued: true over HTTP, keeps the headers that matter, and runs the handler in the background', async () => {
    const { listener, receiver, runs } = serve({ inbox: { pollIntervalMs: 5 }, ordering: true });
    const event = createTestEvent('invoice.paid');
    const { body: payload, headers } = signedRequest(event, SECRET);
    try {
      await withServer(listener, async (url) => {
        const first = await post(url, payload, headers);
        expect(first).toMatchObject({ status: 200, body: { received: true, id: event.id, queued: true, duplicate: false } });
        expect((await post(url, payload, signedHeaders(payload, SECRET))).body).toMatchObject({ duplicate: true });
      });
      await receiver.inbox.drain();
      expect([...runs.values()]).toEqual([1]);
      const stored = await receiver.inbox.get(event.id);
      expect(stored).toMatchObject({ status: 'done', ordering_key: `invoice:${event.data.object.id}` });
      expect(stored!.headers).toMatchObject({ 'content-type': 'application/json', 'x-svc-timestamp': headers['x-svc-timestamp'] });
      expect(Object.keys(stored!.headers).filter((name) => name.includes('signature'))).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  const paid = createTestEvent('invoice.paid');
  const body = JSON.stringify(paid);
  const good = signedHeaders(body, SECRET, { timestamp: nowSeconds() });
  const rejected: [string, () => { body: string; headers: Record<string, string> }, number, string][] = [
    ['tampered body', () => ({ body: body.replace('16950', '16951'), headers: good }), 401, 'SIGNATURE_MISMATCH'],
    ['wrong secret', () => ({ body, headers: signedHeaders(body, 'whsec_notTheReceiversSecret') }), 401, 'SIGNATURE_MISMATCH'],
    ['301 s old', () => ({ body, headers: signedHeaders(body, SECRET, { timestamp: nowSeconds() - 301 }) }), 401, 'TIMESTAMP_TOO_OLD'],
    ['301 s ahead', () => ({ body, headers: signedHeaders(body, SECRET, { timestamp: nowSeconds() + 301 }) }), 401, 'TIMESTAMP_IN_FUTURE'],
    ['no signature', () => ({ body, headers: { ...good, 'x-svc-signature': '' } }), 400, 'MISSING_SIGNATURE'],
    ['no timestamp', () => ({ body, headers: { 'content-type': 'application/json', 'x-svc-signature': good['x-svc-signature'] } }), 400, 'MISSING_TIMESTAMP'],
    ['malformed timestamp', () => ({ body, headers: { ...good, 'x-svc-timestamp': 'yesterday' } }), 400, 'MALFORMED_TIMESTAMP'],
    ['malformed signature', () => ({ body, headers: { ...good, 'x-svc-signature': 'not-hex!' } }), 400, 'MALFORMED_SIGNATURE'],
  ];

  // The name, the status and the code first, so that the test's name says all three.
  it.each(rejected.map(([name, request, status, code]) => [name, status, code, request] as const))('refuses %s → %i %s, handler not run', async (_name, status, code, request) => {
    const { listener, runs } = serve({ clock: () => NOW_MS });
    const { body: sent, headers } = request();
    await withServer(listener, async (url) => {
      const response = await post(url, sent, headers);
      expect(response.status).toBe(status);
      expect(errorCode(response)).toBe(code);
      expect(response.body.error).toEqual({ code, message: expect.any(String), details: expect.any(Object) });
    });
    expect(runs.size).toBe(0);
  });

  it('accepts a timestamp exactly 300 s old', async () => {
    const { listener } = serve({ clock: () => NOW_MS });
    await withServer(listener, async (url) => {
      const response = await post(url, body, signedHeaders(body, SECRET, { timestamp: nowSeconds() - 300 }));
      expect(response.status).toBe(200);
    });
  });

  it('accepts the old secret of a rotation list', async () => {
    const { listener, runs } = serve({ secret: [SECRET, OLD_SECRET] });
    const { body: sent, headers } = signedRequest(createTestEvent('customer.created'), OLD_SECRET);
    await withServer(listener, async (url) => expect((await post(url, sent, headers)).status).toBe(200));
    expect(runs.size).toBe(1);
  });

  it('answers 500 when a handler throws, and runs it again on redelivery', async () => {
    const { hooks, runs } = recorder((_event, run) => {
      if (run === 1) throw new Error('database down');
    });
    const { listener } = adapter.serve({ secret: SECRET, handlers: hooks, store: memoryStore(), logger: false });
    const { body: sent } = signedRequest(createTestEvent('payment.received'), SECRET);
    await withServer(listener, async (url) => {
      const failed = await post(url, sent, signedHeaders(sent, SECRET));
      expect(failed.status).toBe(500);
      expect(errorCode(failed)).toBe('HANDLER_FAILED');
      expect(JSON.stringify(failed.body)).not.toContain('database down');
      const retried = await post(url, sent, signedHeaders(sent, SECRET));
      expect(retried.status).toBe(200);
      expect(retried.body).toMatchObject({ duplicate: false });
    });
    expect([...runs.values()]).toEqual([2]);
  });

  it('answers 409 with Retry-After to a duplicate while the first delivery is still being handled', async () => {
    let finish!: () => void;
    const slow = new Promise<void>((resolve) => (finish = resolve));
    const { hooks, runs } = recorder(() => slow);
    const { listener } = adapter.serve({ secret: SECRET, handlers: hooks, store: memoryStore(), logger: false });
    const { body: sent } = signedRequest(createTestEvent('invoice.paid'), SECRET);
    await withServer(listener, async (url) => {
      const first = post(url, sent, signedHeaders(sent, SECRET));
      await expect.poll(() => runs.size).toBe(1);
      const duplicate = await post(url, sent, signedHeaders(sent, SECRET));
      expect(duplicate.status).toBe(409);
      expect(errorCode(duplicate)).toBe('EVENT_IN_PROGRESS');
      expect(Number(duplicate.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      finish();
      expect((await first).status).toBe(200);
      const after = await post(url, sent, signedHeaders(sent, SECRET));
      expect(after.body).toMatchObject({ duplicate: true });
    });
    expect([...runs.values()]).toEqual([1]);
  });

  it('answers 503 when the handlers run past their budget, aborting their signal', async () => {
    let aborted: unknown;
    const { hooks } = recorder(
      (_event, run, signal) =>
        new Promise<void>((resolve, reject) => {
          if (run > 1) return resolve();
          signal.addEventListener('abort', () => {
            aborted = signal.reason;
            reject(new Error('stopped'));
          });
        }),
    );
    const { listener } = adapter.serve({ secret: SECRET, handlers: hooks, store: memoryStore(), logger: false, handlerTimeoutMs: 50 });
    const { body: sent } = signedRequest(createTestEvent('uva.submitted'), SECRET);
    await withServer(listener, async (url) => {
      const response = await post(url, sent, signedHeaders(sent, SECRET));
      expect(response.status).toBe(503);
      expect(errorCode(response)).toBe('HANDLER_TIMEOUT');
      expect((aborted as { code?: string }).code).toBe('HANDLER_TIMEOUT');
      const retried = await post(url, sent, signedHeaders(sent, SECRET));
      expect(retried.status).toBe(200);
    });
  });

  it('answers 422 VALIDATION_ERROR naming the field, and keeps the payload in quarantine', async () => {
    const { listener, receiver, runs } = serve();
    const event = createTestEvent('invoice.paid', { data: { object: { currency: 'euro' } } });
    const { body: sent, headers } = signedRequest(event, SECRET);
    await withServer(listener, async (url) => {
      const response = await post(url, sent, headers);
      expect(response.status).toBe(422);
      expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'data.object.currency' } });
    });
    const [kept] = await receiver.store.quarantine.list();
    expect(kept).toMatchObject({ reason: 'invalid_payload', event_id: event.id, event_type: 'invoice.paid' });
    expect(kept!.raw_body.toString()).toBe(sent);
    expect(runs.size).toBe(0);
  });

  it('acknowledges an unknown event type with 200 and keeps it; rejects it with 422 when configured', async () => {
    const unknown = JSON.stringify({ ...createTestEvent('invoice.paid'), type: 'invoice.archived' });
    const acknowledging = serve();
    await withServer(acknowledging.listener, async (url) => {
      const response = await post(url, unknown, signedHeaders(unknown, SECRET));
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ received: true, acknowledged: 'unknown_event_type', type: 'invoice.archived' });
    });
    expect(await acknowledging.receiver.store.quarantine.list({ reason: 'unknown_event_type' })).toHaveLength(1);

    const rejecting = serve({ onUnknownEvent: 'reject' });
    await withServer(rejecting.listener, async (url) => {
      const response = await post(url, unknown, signedHeaders(unknown, SECRET));
      expect(response.status).toBe(422);
    });
  });

  it('answers 422 to authentic bytes that are not JSON', async () => {
    const { listener } = serve();
    const garbage = '{"id": "evt_1", "type": ';
    await withServer(listener, async (url) => {
      const response = await post(url, garbage, signedHeaders(garbage, SECRET));
      expect(response.status).toBe(422);
      expect(errorCode(response)).toBe('VALIDATION_ERROR');
    });
  });

  it('answers 413 to a body over the limit', async () => {
    const { listener, runs } = serve();
    const huge = JSON.stringify({ ...paid, padding: 'x'.repeat(1.1 * 1024 * 1024) });
    await withServer(listener, async (url) => {
      const response = await post(url, huge, signedHeaders(huge, SECRET));
      expect(response.status).toBe(413);
      expect(errorCode(response)).toBe('PAYLOAD_TOO_LARGE');
    });
    expect(runs.size).toBe(0);
  });

  it('answers 405 with Allow: POST to a GET on the webhook path', async () => {
    const { listener } = serve();
    await withServer(listener, async (url) => {
      const response = await fetch(`${url}/webhooks`);
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('METHOD_NOT_ALLOWED');
    });
  });

});

describe.each(adapters.filter((adapter) => adapter.routes))('$name routing', (adapter) => {
  it('leaves other paths alone', async () => {
    const { listener } = adapter.serve({ secret: SECRET, store: memoryStore(), logger: false });
    await withServer(listener, async (url) => {
      const response = await fetch(`${url}/health`);
      if (adapter.name.startsWith('express')) {
        expect(await response.json()).toEqual({ from: 'app' });
      } else {
        expect(response.status).toBe(404);
      }
    });
  });
});

describe.each(adapters)('$name beside the app', (adapter) => {
  it("leaves the app's own JSON route parsing while the webhook route verifies", async () => {
    const { hooks, runs } = recorder();
    const { listener } = adapter.serve({ secret: SECRET, handlers: hooks, store: memoryStore(), logger: false });
    const { body, headers } = signedRequest(createTestEvent('invoice.paid'), SECRET);
    await withServer(listener, async (url) => {
      const echoed = await fetch(`${url}/app/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"order":42}' });
      expect(await echoed.json()).toEqual({ parsed: { order: 42 } });
      expect((await post(url, body, headers)).status).toBe(200);
      const forged = await post(url, body, { ...headers, 'x-svc-signature': headers['x-svc-signature'].replace(/.$/, (c) => (c === '0' ? '1' : '0')) });
      expect(forged.status).toBe(401);
    });
    expect(runs.size).toBe(1);
  });

  it('answers 408 BODY_TIMEOUT to a body that stops arriving, handler not run', async () => {
    const { hooks, runs } = recorder();
    const { listener } = adapter.serve({ secret: SECRET, handlers: hooks, store: memoryStore(), logger: false, bodyTimeoutMs: 100 });
    const { body, headers } = signedRequest(createTestEvent('invoice.paid'), SECRET);
    await withServer(listener, async (url) => {
      const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(`${url}/webhooks`, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on('error', reject);
        req.write(body.slice(0, 10));
      });
      expect(answer.status).toBe(408);
      expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'BODY_TIMEOUT' } });
    });
    expect(runs.size).toBe(0);
  });
});
