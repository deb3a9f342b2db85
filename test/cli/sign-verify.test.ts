import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectOneLineError, runCommand, temporaryDirectory, testSecret } from './helpers.js';

const workspace = temporaryDirectory('cli-sign');
afterAll(() => workspace.remove());

/** A body with multi-byte UTF-8, as the platform's Austrian data has: the signature covers bytes. */
const BODY = '{"id":"evt_1","type":"invoice.paid","data":{"object":{"name":"Bäckerei Huber – Straße"}}}';
const bodyFile = join(workspace.path, 'body.json');
writeFileSync(bodyFile, BODY);

/** The platform's signature, computed here from its definition (openssl agrees: sign.integration.test.ts). */
function hmac(secret: string, message: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(message, 'utf8')).digest('hex');
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

describe('acct-webhook sign', () => {
  it('prints the HMAC-SHA256 of "timestamp.body" keyed with the whole secret', async () => {
    const secret = testSecret('hmac');
    const run = await runCommand(['sign', '--secret', secret, '--timestamp', '1763802000', '--file', bodyFile]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe(`x-svc-timestamp: 1763802000\nx-svc-signature: ${hmac(secret, `1763802000.${BODY}`)}\n`);
  });

  it('signs stdin with the secret from WEBHOOK_SECRET and a fresh timestamp', async () => {
    const secret = testSecret('env');
    const before = now();
    const run = await runCommand(['sign', '--json'], { stdin: BODY, env: { WEBHOOK_SECRET: secret } });
    expect(run.exitCode).toBe(0);
    const signed = JSON.parse(run.stdout) as { timestamp: number; signature: string; headers: Record<string, string> };
    expect(signed.timestamp).toBeGreaterThanOrEqual(before);
    expect(signed.timestamp).toBeLessThanOrEqual(now());
    expect(signed.signature).toBe(hmac(secret, `${signed.timestamp}.${BODY}`));
    expect(signed.headers).toEqual({ 'x-svc-signature': signed.signature, 'x-svc-timestamp': String(signed.timestamp) });
    expect(run.stderr).toBe('');
  });

  it('prefers --secret to WEBHOOK_SECRET', async () => {
    const given = testSecret('given');
    const run = await runCommand(['sign', '--secret', given, '--timestamp', '1763802000', '--file', bodyFile], { env: { WEBHOOK_SECRET: testSecret('env') } });
    expect(run.stdout).toContain(hmac(given, `1763802000.${BODY}`));
  });

  it('prints a curl command for the signed body', async () => {
    const run = await runCommand(['sign', '--secret', testSecret('curl'), '--file', bodyFile, '--curl', 'http://127.0.0.1:3000/webhooks']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^curl -sS -X POST http:\/\/127\.0\.0\.1:3000\/webhooks -H 'content-type: application\/json' -H 'x-svc-signature: [0-9a-f]{64}' -H 'x-svc-timestamp: \d+' --data-binary @\S+body\.json\n$/);
  });

  it('needs a secret', async () => {
    expectOneLineError(await runCommand(['sign', '--file', bodyFile]), 'MISSING_SECRET', 2);
  });

  it('needs a readable body file', async () => {
    expectOneLineError(await runCommand(['sign', '--secret', 'whsec_x', '--file', join(workspace.path, 'missing.json')]), 'UNREADABLE_FILE', 2);
    expectOneLineError(await runCommand(['sign', '--secret', 'whsec_x', '--file', workspace.path]), 'UNREADABLE_FILE', 2);
  });

  it('does not wait for a body typed on a terminal: MISSING_INPUT', async () => {
    expectOneLineError(await runCommand(['sign', '--secret', 'whsec_x'], { stdinIsTerminal: true }), 'MISSING_INPUT', 2);
  });

  it('refuses a timestamp that is not Unix seconds', async () => {
    expectOneLineError(await runCommand(['sign', '--secret', 'whsec_x', '--timestamp', '2026-11-22', '--file', bodyFile]), 'INVALID_OPTION', 2);
  });
});

describe('acct-webhook verify', () => {
  const secret = testSecret('verify');
  const verify = (signature: string, timestamp: number, extra: string[] = [], key = secret) =>
    runCommand(['verify', '--secret', key, '--signature', signature, '--timestamp', String(timestamp), '--file', bodyFile, ...extra]);

  it('says valid for a fresh signature of the body', async () => {
    const timestamp = now();
    const run = await verify(hmac(secret, `${timestamp}.${BODY}`), timestamp);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^valid/);
  });

  it('names the failed check of a signature made with another secret: exit 1', async () => {
    const timestamp = now();
    expectOneLineError(await verify(hmac('whsec_other', `${timestamp}.${BODY}`), timestamp), 'SIGNATURE_MISMATCH', 1);
  });

  it('names the failed check of a stale timestamp, and accepts it with more --tolerance', async () => {
    const timestamp = now() - 3600;
    const signature = hmac(secret, `${timestamp}.${BODY}`);
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
    const signature = hmac('whsec_other', `${timestamp}.${BODY}`);
    const run = await verify(signature, timestamp);
    expect(run.stdout + run.stderr).not.toContain(secret);
    expect(run.stdout + run.stderr).not.toContain(signature);
  });

  it.each([
    ['a leading space', ` ${secret}`],
    ['a trailing space', `${secret} `],
    ['a trailing newline', `${secret}\n`],
  ])('gives only the whitespace hint for a --secret with %s', async (_case, key) => {
    const timestamp = now();
    const run = await verify(hmac(secret, `${timestamp}.${BODY}`), timestamp, [], key);
    expectOneLineError(run, 'INVALID_OPTION', 2);
    expect(run.stderr).toMatch(/^acct-webhook verify: --secret has whitespace before or after the secret/);
    expect(run.stderr).not.toMatch(/whsec_|does not match|SIGNATURE_MISMATCH/);
  });

  it('gives the same hint for a WEBHOOK_SECRET with whitespace, naming the variable', async () => {
    const timestamp = now();
    const run = await runCommand(['verify', '--signature', hmac(secret, `${timestamp}.${BODY}`), '--timestamp', String(timestamp), '--file', bodyFile], {
      env: { WEBHOOK_SECRET: `${secret}\n` },
    });
    expectOneLineError(run, 'INVALID_OPTION', 2);
    expect(run.stderr).toMatch(/^acct-webhook verify: WEBHOOK_SECRET has whitespace/);
  });

  it('needs a secret and a readable file', async () => {
    expectOneLineError(await runCommand(['verify', '--signature', 'ab', '--timestamp', '1', '--file', bodyFile]), 'MISSING_SECRET', 2);
    expectOneLineError(await runCommand(['verify', '--secret', secret, '--signature', 'ab', '--timestamp', '1', '--file', '/nonexistent']), 'UNREADABLE_FILE', 2);
  });
});
