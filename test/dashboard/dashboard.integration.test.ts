import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer as createHttpsServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardNodeHandler } from '../../src/dashboard/index.js';
import { testDispatcher } from '../dispatcher/fixtures.js';
import { withServer } from '../helpers/server.js';
import { BASE } from './fixtures.js';

// The dashboard served over TLS on 127.0.0.1 with a self-signed certificate, which openssl makes
// (a subprocess, so this is not in the unit project).

describe('served over https', () => {
  let dir: string;
  let key: Buffer;
  let cert: Buffer;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'acct-dashboard-tls-'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    ], { stdio: 'ignore' });
    key = readFileSync(join(dir, 'key.pem'));
    cert = readFileSync(join(dir, 'cert.pem'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function get(port: number, path: string): Promise<{ status: number; headers: IncomingHttpHeaders }> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, ca: cert, headers: { accept: 'text/html' } }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('the CSRF cookie gets Secure when the connection is TLS, without any proxy header', async () => {
    const board = dashboardNodeHandler({ dispatcher: testDispatcher(), authorize: () => true, basePath: BASE, logger: false });
    await withServer(createHttpsServer({ key, cert }, board), async (_url, server) => {
      const page = await get((server.address() as AddressInfo).port, `${BASE}/`);
      expect(page.status).toBe(200);
      expect(page.headers['set-cookie']![0]!.split('; ')).toContain('Secure');
    });
  });
});
