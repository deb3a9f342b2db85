import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestEvent } from '../../src/testing/index.js';
import { expectOneLineError, runCli, temporaryDirectory, testSecret } from './helpers.js';
import { startReceiver } from './receivers.js';

const workspace = temporaryDirectory('cli-sign');
afterAll(() => workspace.remove());

/** A body with multi-byte UTF-8, as the platform's Austrian data has: the signature covers bytes. */
const BODY = '{"id":"evt_1","type":"invoice.paid","data":{"object":{"name":"Bäckerei Huber – Straße"}}}';
const bodyFile = join(workspace.path, 'body.json');
writeFileSync(bodyFile, BODY);

function openssl(secret: string, message: string): string {
  const output = execFileSync('openssl', ['dgst', '-sha256', '-hmac', secret], { input: message }).toString();
  return output.trim().split(' ').at(-1) ?? '';
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

describe('acct-webhook sign', () => {
  it('agrees with openssl dgst -sha256 -hmac over "timestamp.body"', async () => {
    const secret = testSecret('openssl');
    const run = await runCli(['sign', '--secret', secret, '--timestamp', '1763802000', '--file', bodyFile]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe(`x-svc-timestamp: 1763802000\nx-svc-signature: ${openssl(secret, `1763802000.${BODY}`)}\n`);
  });

  it('signs stdin with the secret from WEBHOOK_SECRET and a fresh timestamp', async () => {
    const secret = testSecret('env');
    const before = now();
    const run = await runCli(['sign', '--json'], { stdin: BODY, env: { WEBHOOK_SECRET: secret } });
    expect(run.exitCode).toBe(0);
    const signed = JSON.parse(run.stdout) as { timestamp: number; signature: string; headers: Record<string, string> };
    expect(signed.timestamp).toBeGreaterThanOrEqual(before);
    expect(signed.timestamp).toBeLessThanOrEqual(now());
    expect(signed.signature).toBe(openssl(secret, `${signed.timestamp}.${BODY}`));
    expect(signed.headers).toEqual({ 'x-svc-signature': signed.signature, 'x-svc-timestamp': String(signed.timestamp) });
    expect(run.stderr).toBe('');
  });

  it('prints a curl command that a receiver accepts', async () => {
    const secret = testSecret('curl');
    const receiver = await startReceiver(secret);
    try {
      const sample = join(workspace.path, 'sample.json');
      writeFileSync(sample, JSON.stringify(createTestEvent('invoice.paid', { id: 'evt_curl_1' })));
      const run = await runCli(['sign', '--secret', secret, '--file', sample, '--curl', receiver.url]);
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toMatch(/^curl -sS -X POST /);
      // Asynchronously: the receiver answering curl runs in this process.
      await promisify(execFile)('sh', ['-c', run.stdout], { cwd: workspace.path, timeout: 10_000 });
      expect(receiver.handled.map((handled) => handled.id)).toEqual(['evt_curl_1']);
    } finally {
      await receiver.close();
    }
  });

  it('needs a secret', async () => {
    expectOneLineError(await runCli(['sign', '--file', bodyFile]), 'MISSING_SECRET', 2);
  });

  it('needs a readable body file', async () => {
    expectOneLineError(await runCli(['sign', '--secret', 'whsec_x', '--file', join(workspace.path, 'missing.json')]), 'UNREADABLE_FILE', 2);
    expectOneLineError(await runCli(['sign', '--secret', 'whsec_x', '--file', workspace.path]), 'UNREADABLE_FILE', 2);
  });

  it('refuses a timestamp that is not Unix seconds', async () => {
    expectOneLineError(await runCli(['sign', '--secret', 'whsec_x', '--timestamp', '2026-11-22', '--file', bodyFile]), 'INVALID_OPTION', 2);
  });
});

describe('acct-webhook verify', () => {
  const secret = testSecret('verify');
  const verify = (signature: string, timestamp: number, extra: string[] = []) =>
    runCli(['verify', '--secret', secret, '--signature', signature, '--timestamp', String(timestamp), '--file', bodyFile, ...extra]);

  it('says valid for a fresh signature of the body', async () => {
    const timestamp = now();
    const run = await verify(openssl(secret, `${timestamp}.${BODY}`), timestamp);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^valid/);
  });

  it('names the failed check of a signature made with another secret: exit 1', async () => {
    const timestamp = now();
    const run = await verify(openssl('whsec_other', `${timestamp}.${BODY}`), timestamp);
    expectOneLineError(run, 'SIGNATURE_MISMATCH', 1);
  });

  it('names the failed check of a stale timestamp, and accepts it with more --tolerance', async () => {
    const timestamp = now() - 3600;
    const signature = openssl(secret, `${timestamp}.${BODY}`);
    expectOneLineError(await verify(signature, timestamp), 'TIMESTAMP_TOO_OLD', 1);
    expect((await verify(signature, timestamp, ['--tolerance', '7200'])).exitCode).toBe(0);
  });

  it('answers in JSON with --json, exit 1 when invalid', async () => {
    const run = await verify('ab'.repeat(32), now(), ['--json']);
    expect(run.exitCode).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ valid: false, code: 'SIGNATURE_MISMATCH' });
  });

  it('never prints the secret or the signature', async () => {
    const timestamp = now();
    const signature = openssl('whsec_other', `${timestamp}.${BODY}`);
    const run = await verify(signature, timestamp);
    expect(run.stdout + run.stderr).not.toContain(secret);
    expect(run.stdout + run.stderr).not.toContain(signature);
  });

  it('needs a secret and a readable file', async () => {
    expectOneLineError(await runCli(['verify', '--signature', 'ab', '--timestamp', '1', '--file', bodyFile]), 'MISSING_SECRET', 2);
    expectOneLineError(await runCli(['verify', '--secret', secret, '--signature', 'ab', '--timestamp', '1', '--file', '/nonexistent']), 'UNREADABLE_FILE', 2);
  });
});
