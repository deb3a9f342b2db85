import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RESPONSE_BODY_LIMIT_BYTES } from '../../src/dispatcher/dispatcher-defaults.js';
import type { AttemptReport } from '../../src/dispatcher/attempt-report.js';
import { createSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { close, listen } from '../helpers/server.js';
import { apiClient, type DeliveryView } from './helpers.js';

/*
 * The fault proxy sends as the Dispatcher sends: the receiver's address resolved and checked when
 * it connects, one timer for the exchange, at most 64 KiB of the answer kept. (Memory under a
 * 300 MiB answer is measured in a child process: fault-proxy.integration.test.ts.)
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function sandboxWith(options: SandboxOptions = {}) {
  const attempts: AttemptReport[] = [];
  const sandbox = await createSandbox({ seed: 11, ...options, onAttempt: (report) => attempts.push(report) });
  cleanups.push(() => sandbox.close());
  const call = apiClient(sandbox);
  const deliveries = async (webhookId: string): Promise<DeliveryView[]> => {
    const list = (await call('GET', `/webhooks/${webhookId}/deliveries?order=asc`)).body.data as { id: string }[];
    return Promise.all(list.map(async (delivery) => (await call('GET', `/webhooks/${webhookId}/deliveries/${delivery.id}`)).body.data as DeliveryView));
  };
  return { sandbox, call, attempts, deliveries };
}

/** A TCP server on 127.0.0.1 that counts connections and answers none: whatever reaches it is counted. */
async function countingServer(): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const server: TcpServer = createTcpServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, connections: () => connections };
}

describe('the fault proxy checks the receiver address when it sends', () => {
  it('refuses a name re-pointed at 127.0.0.1 after registration before connecting; the attempt says ssrf', async () => {
    const target = await countingServer();
    // The resolver seam: a public address when the URL is registered (a string only, never
    // connected to), 127.0.0.1 when the proxy connects. Were the check missing, the connection
    // would reach the counting server on 127.0.0.1.
    const table: Record<string, string[]> = { 'receiver.example': ['93.184.216.34'] };
    const { sandbox, call, deliveries } = await sandboxWith({ resolveHost: (host) => Promise.resolve(table[host] ?? []) });
    const webhook = (await call('POST', '/webhooks', { url: `https://receiver.example:${target.port}/hook`, events: ['customer.*'] })).body.data;
    expect(webhook.status).toBe('active');
    table['receiver.example'] = ['127.0.0.1'];
    await call('POST', '/customers', { name: 'Huber' });
    await sandbox.settle();
    expect(target.connections()).toBe(0);
    const [delivery] = await deliveries(webhook.id);
    expect(delivery!.status).toBe('retrying');
    expect(delivery!.attempts[0]).toMatchObject({ error_kind: 'ssrf', response_status: null, receiver_ip: null, error_message: expect.stringContaining('loopback') });
  });

  it('reaches the same counting server through an allowed loopback URL: the refusal above is the check, not the server', async () => {
    const target = await countingServer();
    const { sandbox, call, deliveries } = await sandboxWith();
    const webhook = (await call('POST', '/webhooks', { url: `http://127.0.0.1:${target.port}/hook`, events: ['customer.*'] })).body.data;
    await call('POST', '/customers', { name: 'Huber' });
    await sandbox.settle();
    expect(target.connections()).toBe(1);
    const [delivery] = await deliveries(webhook.id);
    expect(delivery!.attempts[0]).toMatchObject({ error_kind: 'connection', response_status: null, receiver_ip: '127.0.0.1' });
  });
});

describe('the fault proxy keeps the Dispatcher\'s limits', () => {
  it('keeps at most the Dispatcher\'s 64 KiB of an answer and stops reading: the receiver\'s 8 MiB answer is cut off', async () => {
    let finished: boolean | null = null;
    const receiver = await listen((request, response) => {
      request.resume();
      response.on('close', () => (finished = response.writableFinished));
      response.writeHead(500, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let left = 128;
      const write = (): void => {
        while (left > 0) {
          left -= 1;
          if (!response.write(chunk)) {
            response.once('drain', write);
            return;
          }
        }
        response.end();
      };
      write();
    });
    cleanups.push(() => close(receiver.server));
    const { sandbox, call, deliveries, attempts } = await sandboxWith();
    const webhook = (await call('POST', '/webhooks', { url: `${receiver.url}/hook`, events: ['customer.*'] })).body.data;
    await call('POST', '/customers', { name: 'Huber' });
    await sandbox.settle();
    const [delivery] = await deliveries(webhook.id);
    expect(delivery!.attempts[0]).toMatchObject({ response_status: 500, error_kind: 'http_status', receiver_ip: '127.0.0.1' });
    expect(Buffer.byteLength(delivery!.attempts[0]!.response_body ?? '')).toBe(RESPONSE_BODY_LIMIT_BYTES);
    expect(attempts[0]!.attempt).toMatchObject({ webhook_id: webhook.id, response_status: 500 });
    await expect.poll(() => finished).toBe(false);
  });

  it('ends the exchange at the Dispatcher\'s timeout: no answer is a timeout; a status and a body that never ends count as that status, as the Dispatcher counts them', async () => {
    const closed = { silent: false, trickling: false };
    const silent = await listen((request, response) => {
      request.resume();
      response.on('close', () => (closed.silent = true));
    });
    const trickling = await listen((request, response) => {
      request.resume();
      response.writeHead(200);
      response.write('{"started":');
      response.on('close', () => (closed.trickling = true));
    });
    cleanups.push(() => close(silent.server), () => close(trickling.server));
    const { sandbox, call, deliveries } = await sandboxWith({ deliveryTimeoutMs: 300 });
    const quiet = (await call('POST', '/webhooks', { url: `${silent.url}/hook`, events: ['customer.*'] })).body.data;
    const slow = (await call('POST', '/webhooks', { url: `${trickling.url}/hook`, events: ['customer.*'] })).body.data;
    await call('POST', '/customers', { name: 'Huber' });
    await sandbox.settle();
    const [unanswered] = await deliveries(quiet.id);
    expect(unanswered!.status).toBe('retrying');
    expect(unanswered!.attempts[0]).toMatchObject({ error_kind: 'timeout', response_status: null });
    const [started] = await deliveries(slow.id);
    expect(started!.status).toBe('delivered');
    expect(started!.attempts[0]).toMatchObject({ error_kind: null, response_status: 200, response_body: '{"started":' });
    await expect.poll(() => closed).toEqual({ silent: true, trickling: true });
  });
});
