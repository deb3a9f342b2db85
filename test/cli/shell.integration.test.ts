import { execFile, execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestEvent } from '../../src/testing/index.js';
import { temporaryDirectory, testSecret } from './helpers.js';
import { runProcess } from './process.js';
import { startReceiver } from './receivers.js';
import { OUTCOME_TIMEOUT_MS } from '../helpers/patience.js';

/* The bin's output used by other tools, as a user would: openssl checks a signature, sh runs a curl command. */

const workspace = temporaryDirectory('cli-shell');
afterAll(() => workspace.remove());

const BODY = '{"id":"evt_1","type":"invoice.paid","data":{"object":{"name":"Bäckerei Huber – Straße"}}}';

describe('acct-webhook sign with other tools', () => {
  it('agrees with openssl dgst -sha256 -hmac over "timestamp.body"', async () => {
    const secret = testSecret('openssl');
    const file = join(workspace.path, 'body.json');
    writeFileSync(file, BODY);
    const run = await runProcess(['sign', '--secret', secret, '--timestamp', '1763802000', '--file', file]);
    expect(run.exitCode).toBe(0);
    const openssl = execFileSync('openssl', ['dgst', '-sha256', '-hmac', secret], { input: `1763802000.${BODY}` }).toString().trim().split(' ').at(-1);
    expect(run.stdout).toBe(`x-svc-timestamp: 1763802000\nx-svc-signature: ${openssl}\n`);
  });

  it('prints a curl command that a receiver accepts', async () => {
    const secret = testSecret('curl');
    const receiver = await startReceiver(secret);
    try {
      const sample = join(workspace.path, 'sample.json');
      writeFileSync(sample, JSON.stringify(createTestEvent('invoice.paid', { id: 'evt_curl_1' })));
      const run = await runProcess(['sign', '--secret', secret, '--file', sample, '--curl', receiver.url]);
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toMatch(/^curl -sS -X POST /);
      // Asynchronously: the receiver answering curl runs in this process.
      await promisify(execFile)('sh', ['-c', run.stdout], { cwd: workspace.path, timeout: OUTCOME_TIMEOUT_MS });
      expect(receiver.handled.map((handled) => handled.id)).toEqual(['evt_curl_1']);
    } finally {
      await receiver.close();
    }
  });
});
