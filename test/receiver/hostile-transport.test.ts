import { Agent, request, type RequestListener } from 'node:http';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { memoryStore, nodeHandler, webhookHandler, Webhooks, type WebhookHandlerOptions } from '../../src/index.js';
import { createTestEvent, signedHeaders, signedRequest } from '../../src/testing/index.js';
import { withServer } from '../helpers/server.js';

const SECRET = 'whsec_hostileTransportSecret00000000';

interface RawResponse {
  status: number;
  body: { error?: { code: string } };
  headers: Record<string, string | string[] | undefined>;
}

/**
 * Sends a body chunk by chunk through `write`, as slowly or as much as the test wants, and
 * reports the answer and how many bytes the server let through before answering.
 */
function stream(
  url: string,
  headers: Record<string, string>,
  write: (send: (chunk: Buffer | string) => boolean, answered: () => boolean) => Promise<void>,
): Promise<RawResponse & { sentBeforeAnswer: number }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let sentBeforeAnswer = -1;
    let answer: RawResponse | undefined;
    // A keep-alive connection, as senders use: with `connection: close` Node's server closes the
    // socket right after the answer, and a client still writing gets a reset before reading it.
    const agent = new Agent({ keepAlive: true });
    const req = request(`${url}/webhooks`, { method: 'POST', headers, agent }, (res) => {
      sentBeforeAnswer = sent;
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        answer = { status: res.statusCode ?? 0, body: JSON.parse(text) as RawResponse['body'], headers: res.headers };
        agent.destroy();
        resolve({ ...answer, sentBeforeAnswer });
      });
    });
    req.on('error', (error) => (answer ? undefined : reject(error)));
    const send = (chunk: Buffer | string) => {
      if (req.destroyed || sentBeforeAnswer >= 0) return false;
      sent += Buffer.byteLength(chunk);
      return req.write(chunk);
    };
    // Once answered, the rest of the upload is abandoned: finishing it on a connection the server
    // is cutting would only produce a reset.
    write(send, () => sentBeforeAnswer >= 0 || req.destroyed)
      .then(() => (sentBeforeAnswer >= 0 ? undefined : req.end()))
      .catch(reject);
  });
}

const adapters: [string, (options: WebhookHandlerOptions) => RequestListener][] = [
  ['express', (options) => express().use(webhookHandler(options))],
  ['node:http', (options) => nodeHandler(options)],
];

describe.each(adapters)('%s under hostile transport', (_name, listener) => {
  function serve(extra: Partial<WebhookHandlerOptions> = {}) {
    const runs: string[] = [];
    const hooks = new Webhooks().onAny((event) => {
      runs.push(event.id);
    });
    return { app: listener({ secret: SECRET, handlers: hooks, store: memoryStore(), logger: false, ...extra }), runs };
  }

  it('answers 413 to a chunked body over the limit without reading the rest', async () => {
    const { app, runs } = serve({ maxBodyBytes: 64 * 1024 });
    const total = 50 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    await withServer(app, async (url) => {
      const response = await stream(url, { 'content-type': 'application/json', 'x-svc-signature': 'a'.repeat(64), 'x-svc-timestamp': '1' }, async (send, answered) => {
        for (let written = 0; written < total && !answered(); written += chunk.length) {
          if (!send(chunk)) await new Promise((resolve) => setTimeout(resolve, 1));
        }
      });
      expect(response.status).toBe(413);
      expect(response.body.error?.code).toBe('PAYLOAD_TOO_LARGE');
      expect(response.sentBeforeAnswer).toBeLessThan(total / 4);
    });
    expect(runs).toEqual([]);
  });

  it('answers 408 to a body that trickles in slower than bodyTimeoutMs, and handles nothing', async () => {
    const { app, runs } = serve({ bodyTimeoutMs: 200 });
    const { body, headers } = signedRequest(createTestEvent('invoice.paid'), SECRET);
    await withServer(app, async (url) => {
      const response = await stream(url, { ...headers, 'content-length': String(Buffer.byteLength(body)) }, async (send, answered) => {
        for (const character of body) {
          if (answered()) return;
          send(character);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      });
      expect(response.status).toBe(408);
      expect(response.body.error?.code).toBe('BODY_TIMEOUT');
    });
    expect(runs).toEqual([]);
  });

  it('lets go of a body whose client went away mid-way (not only at bodyTimeoutMs), handles nothing, and serves the next delivery', async () => {
    let outcomeSeen: (kind: string) => void = () => undefined;
    const outcome = new Promise<string>((resolve) => (outcomeSeen = resolve));
    // The body timeout is longer than the test's: only noticing the closed connection ends the read.
    const { app, runs } = serve({ bodyTimeoutMs: 600_000, onOutcome: (report) => outcomeSeen(`${report.outcome} ${report.status} ${report.code}`) });
    const event = createTestEvent('invoice.paid');
    const { body, headers } = signedRequest(event, SECRET);
    await withServer(app, async (url) => {
      const abandoned = request(`${url}/webhooks`, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } });
      abandoned.on('error', () => undefined);
      abandoned.write(body.slice(0, 20), () => abandoned.destroy());
      // The client's doing, not the receiver's: a refusal (400 BODY_ABORTED), not a receiver error.
      expect(await outcome).toBe('rejected 400 BODY_ABORTED');
      expect(runs).toEqual([]);
      const delivered = await fetch(`${url}/webhooks`, { method: 'POST', headers, body });
      expect(delivered.status).toBe(200);
    });
    expect(runs).toEqual([event.id]);
  });

  it('handles 300 concurrent deliveries, each event once', async () => {
    const { app, runs } = serve();
    const requests = Array.from({ length: 150 }, () => signedRequest(createTestEvent('payment.received'), SECRET));
    await withServer(app, async (url) => {
      const statuses = await Promise.all(
        [...requests, ...requests].map(async ({ body }) => {
          const response = await fetch(`${url}/webhooks`, { method: 'POST', body, headers: signedHeaders(body, SECRET) });
          await response.arrayBuffer();
          return response.status;
        }),
      );
      expect(statuses.filter((status) => status !== 200 && status !== 409)).toEqual([]);
    });
    expect(new Set(runs).size).toBe(150);
    expect(runs).toHaveLength(150);
  });

  it('accepts an authentic body whatever its content type: the signature, not the header, decides', async () => {
    const { app, runs } = serve();
    const { body, headers } = signedRequest(createTestEvent('customer.created'), SECRET);
    await withServer(app, async (url) => {
      const response = await fetch(`${url}/webhooks`, { method: 'POST', body, headers: { ...headers, 'content-type': 'text/plain' } });
      expect(response.status).toBe(200);
    });
    expect(runs).toHaveLength(1);
  });
});
