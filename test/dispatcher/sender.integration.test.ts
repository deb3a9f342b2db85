import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dispatcher } from '../../src/dispatcher.js';
import { verifySignature } from '../../src/signing/signature.js';
import { createTestEvent } from '../../src/testing/index.js';
import { withServer } from '../helpers/server.js';
import { Receiver, testDispatcher } from './fixtures.js';

// Deliveries over TLS to a receiver on 127.0.0.1 with a self-signed certificate, which openssl
// makes (a subprocess, so this is not in the unit project).

async function onlyDelivery(dispatcher: Dispatcher) {
  const [delivery] = await dispatcher.deliveries.list();
  return dispatcher.deliveries.get(delivery!.id);
}

describe('https', () => {
  let dir: string;
  let key: Buffer;
  let cert: Buffer;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'acct-dispatch-tls-'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ], { stdio: 'ignore' });
    key = readFileSync(join(dir, 'key.pem'));
    cert = readFileSync(join(dir, 'cert.pem'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const tlsServer = (receiver: Receiver) => createHttpsServer({ key, cert }, receiver.listener);
  const localhostOnly = (hostname: string) => Promise.resolve(hostname === 'localhost' ? ['127.0.0.1'] : []);

  it('delivers to a receiver whose self-signed certificate is trusted through `ca`', async () => {
    const receiver = new Receiver(() => 200);
    await withServer(tlsServer(receiver), async (url) => {
      const port = new URL(url).port;
      const dispatcher = testDispatcher({ allowInsecureUrls: false, allowedHosts: ['localhost'], resolveHost: localhostOnly, ca: cert });
      const { secret } = await dispatcher.webhooks.create({ url: `https://localhost:${port}/webhooks`, events: ['*'] });
      await dispatcher.emit(createTestEvent('uva.confirmed'));
      await dispatcher.runDue();
      const detail = await onlyDelivery(dispatcher);
      expect(detail.status).toBe('delivered');
      expect(detail.attempts[0]).toMatchObject({ response_status: 200, receiver_ip: '127.0.0.1' });
      const [request] = receiver.requests;
      expect(() =>
        verifySignature({ payload: request!.body, signature: request!.headers['x-svc-signature'], timestamp: request!.headers['x-svc-timestamp'], secret }),
      ).not.toThrow();
    });
  });

  it('fails as a TLS error when the certificate is not trusted', async () => {
    const receiver = new Receiver(() => 200);
    await withServer(tlsServer(receiver), async (url) => {
      const port = new URL(url).port;
      const dispatcher = testDispatcher({ allowInsecureUrls: false, allowedHosts: ['localhost'], resolveHost: localhostOnly });
      await dispatcher.webhooks.create({ url: `https://localhost:${port}/webhooks`, events: ['*'] });
      await dispatcher.emit(createTestEvent('uva.rejected'));
      await dispatcher.runDue();
      const detail = await onlyDelivery(dispatcher);
      expect(detail.status).toBe('retrying');
      expect(detail.attempts[0]).toMatchObject({ error_kind: 'tls', response_status: null });
      expect(receiver.requests).toHaveLength(0);
    });
  });
});
