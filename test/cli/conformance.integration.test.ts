import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeHandler } from '../../src/adapters/node/index.js';
import { DEFAULT_MAX_BODY_BYTES } from '../../src/receiver/options.js';
import { verifySignature } from '../../src/signing/signature.js';
import { generateSigningKeyPair } from '../../src/signing/standard-webhooks.js';
import { memoryStore } from '../../src/stores/memory/idempotency-store.js';
import { EVENT_TYPES } from '../../src/events/catalog.js';
import { REPO_ROOT } from '../scaffold/helpers.js';
import { testSecret } from './helpers.js';
import { runProcess, type ProcessResult } from './process.js';
import { closeServer, listenOnLoopback } from './servers.js';

/*
 * `acct-webhook conformance` as a process against real servers on 127.0.0.1: this package's own
 * receiver passes every case (both schemes, v1 and v1a), a receiver that forgets the past side of
 * the window fails the stale row and the run exits 1, and a URL that is not this machine is
 * refused before any socket is created (a preloaded hook reports every client socket).
 * The Python and Go receivers of docs/other-languages.md: test/slow/other-languages.test.ts.
 */

const CONNECTIONS_HOOK = join(REPO_ROOT, 'test', 'fixtures', 'conformance', 'connections.mjs');
const SOCKET_CREATED = 'client socket created';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function serve(server: Server): Promise<string> {
  const base = await listenOnLoopback(server);
  closers.push(() => closeServer(server));
  return `${base}/webhooks`;
}

async function ownReceiver(options: { secret: string; scheme?: 'svc' | 'standard-webhooks' }): Promise<string> {
  const handler = nodeHandler({ ...options, store: memoryStore(), logger: false });
  closers.push(() => handler.receiver.close());
  return serve(createServer(handler));
}

/** The table's row of `name`: its cells, split on the column gaps. */
function row(result: ProcessResult, name: string): string[] | undefined {
  const line = result.stdout.split('\n').find((text) => text.startsWith(`${name} `));
  return line?.trim().split(/ {2,}/);
}

/** Every row's result column. */
function results(result: ProcessResult): Map<string, string> {
  const lines = result.stdout.split('\n').slice(2).filter((text) => / (pass|FAIL)$/.test(text));
  return new Map(lines.map((text) => [text.split(' ')[0]!, text.trim().split(/ {2,}/).at(-1)!]));
}

describe('acct-webhook conformance', () => {
  it("passes every case against this package's receiver (svc): exit 0, one row per case", async () => {
    const secret = testSecret('conformance');
    const url = await ownReceiver({ secret });
    const result = await runProcess(['conformance', url], { env: { WEBHOOK_SECRET: secret } });
    expect(result, result.stdout + result.stderr).toMatchObject({ exitCode: 0, stderr: '' });
    const rows = results(result);
    expect(rows.size).toBe(34);
    expect([...rows.values()].every((verdict) => verdict === 'pass')).toBe(true);
    for (const type of EVENT_TYPES) expect(rows.get(`type/${type}`)).toBe('pass');
    expect(row(result, 'stale')).toEqual(['stale', '4xx (401 TIMESTAMP_TOO_OLD)', '401 TIMESTAMP_TOO_OLD', 'pass']);
    expect(row(result, 'duplicate')).toEqual(['duplicate', '2xx', '200, 200', 'pass']);
    expect(row(result, 'oversized-body')).toEqual(['oversized-body', '413', '413 PAYLOAD_TOO_LARGE', 'pass']);
    expect(result.stdout).toMatch(/^34 of 34 cases passed$/m);
    expect(result.stdout).not.toContain(secret);
  });

  it("passes every case against this package's Standard Webhooks receiver, v1 (whsec_) and v1a (whsk_ → whpk_)", async () => {
    const secret = `whsec_${Buffer.from(testSecret('conformance-v1')).toString('base64')}`;
    const pair = generateSigningKeyPair();
    const v1 = await ownReceiver({ secret, scheme: 'standard-webhooks' });
    const v1a = await ownReceiver({ secret: pair.publicKey, scheme: 'standard-webhooks' });
    for (const [url, key] of [[v1, secret], [v1a, pair.privateKey]] as const) {
      const result = await runProcess(['conformance', url, '--scheme', 'standard-webhooks', '--secret', key, '--json']);
      expect(result.exitCode, result.stdout + result.stderr).toBe(0);
      const report = JSON.parse(result.stdout) as { passed: number; failed: number; cases: { name: string; pass: boolean }[] };
      expect(report).toMatchObject({ passed: 37, failed: 0 });
      expect(report.cases.map((testCase) => testCase.name)).toContain('several-signatures');
      expect(result.stdout).not.toContain(key);
    }
  });

  it('names the stale row and exits 1 against a receiver that accepts stale timestamps', async () => {
    const secret = testSecret('conformance-broken');
    const url = await serve(staleAcceptingReceiver(secret));
    const result = await runProcess(['conformance', url, '--secret', secret]);
    expect(result.exitCode, result.stdout + result.stderr).toBe(1);
    expect(row(result, 'stale')).toEqual(['stale', '4xx (401 TIMESTAMP_TOO_OLD)', '200', 'FAIL']);
    const failed = [...results(result)].filter(([, verdict]) => verdict === 'FAIL').map(([name]) => name);
    expect(failed).toEqual(['stale']);
    expect(result.stdout).toMatch(/^33 of 34 cases passed; failed: stale$/m);
  });

  it.each(['http://10.0.0.1/webhooks', 'http://example.invalid/webhooks', 'https://[2001:db8::1]:8443/hooks'])(
    'refuses %s without --allow-remote before creating any socket: one line, REMOTE_URL, exit 2',
    async (url) => {
      const result = await runProcess(['conformance', url, '--secret', testSecret('remote')], { env: { NODE_OPTIONS: `--import ${pathToFileURL(CONNECTIONS_HOOK).href}` } });
      expect(result.exitCode).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^acct-webhook conformance: [^\n]+ \[REMOTE_URL\]\n$/);
    },
  );

  it('the socket hook does see a run that sends (the check above is not vacuous)', async () => {
    const secret = testSecret('conformance-hook');
    const url = await ownReceiver({ secret });
    const result = await runProcess(['conformance', url, '--secret', secret, '--json'], { env: { NODE_OPTIONS: `--import ${pathToFileURL(CONNECTIONS_HOOK).href}` } });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain(SOCKET_CREATED);
  });
});

/**
 * A receiver with a classic bug: it refuses timestamps too far ahead but never checks the past
 * side of the window (it verifies as if "now" were the request's own time when that is earlier).
 */
function staleAcceptingReceiver(secret: string): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size <= DEFAULT_MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      const answer = (status: number) => res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      if (size > DEFAULT_MAX_BODY_BYTES) return answer(413);
      const timestamp = req.headers['x-svc-timestamp'];
      const seconds = Number(timestamp);
      try {
        verifySignature({
          payload: Buffer.concat(chunks),
          signature: req.headers['x-svc-signature'] ?? '',
          timestamp: timestamp ?? '',
          secret,
          now: Number.isSafeInteger(seconds) ? Math.min(Date.now(), seconds * 1000) : Date.now(),
        });
        return answer(200);
      } catch {
        return answer(401);
      }
    });
  });
}
