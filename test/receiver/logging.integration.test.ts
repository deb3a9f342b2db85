import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// The other logging tests, on a logger the test passes in, are in logging.test.ts.
const SECRET = 'whsec_loggingSecretNeverToBePrinted000';

describe('the default logger', () => {
  it('writes JSON lines to standard error, never to standard output, and no secret', () => {
    // A separate process, so that its real stdout and stderr can be told apart.
    const script = `
      import { createReceiver, memoryStore } from ${JSON.stringify(pathToFileURL(resolve('dist/index.js')).href)};
      const receiver = createReceiver({ secret: ${JSON.stringify(SECRET)}, store: memoryStore() });
      const body = '{"id":"evt_1"}';
      await receiver.receive({ rawBody: body, headers: { 'x-svc-signature': 'ab'.repeat(32), 'x-svc-timestamp': String(Math.floor(Date.now() / 1000)) } });
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('');
    const [line, ...rest] = run.stderr.trim().split('\n').map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(rest).toEqual([]);
    expect(line).toMatchObject({ name: 'acct-webhook', component: 'receiver', msg: 'webhook delivery', outcome: 'rejected', code: 'SIGNATURE_MISMATCH', status: 401 });
    expect(run.stderr).not.toContain(SECRET);
  });
});
