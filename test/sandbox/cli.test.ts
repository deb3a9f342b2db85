import { describe, expect, it } from 'vitest';
import { CommandRun, expectOneLineError, runCommand } from '../cli/helpers.js';
import { apiClient } from './helpers.js';

/* `acct-webhook sandbox`, `sandbox clock` and `sandbox faults`, in this process through runCli. */

async function startSandbox(args: readonly string[]) {
  const run = new CommandRun(['sandbox', '--port', '0', ...args]);
  const [, url] = await run.waitForOutput(/Sandbox on (http:\/\/127\.0\.0\.1:\d+\/v1)/);
  const [, apiKey] = await run.waitForOutput(/Test key: +(sk_test_\w+)/);
  return { run, url: url!, apiKey: apiKey! };
}

describe('acct-webhook sandbox', () => {
  it('prints its base URL and test key, serves /v1 with it, and stops on Ctrl-C', async () => {
    const { run, url, apiKey } = await startSandbox(['--seed', '42', '--plan', 'starter']);
    try {
      const me = await apiClient({ url, apiKey })('GET', '/me');
      expect(me.status).toBe(200);
      expect(me.body.data.subscription.plan).toBe('starter');
      expect(me.headers.get('x-ratelimit-limit')).toBe('60');
    } finally {
      expect(await run.stop()).toBe(0);
    }
  });

  it('makes the same key from the same seed, and takes --api-key', async () => {
    const first = await startSandbox(['--seed', '9']);
    await first.run.stop();
    const second = await startSandbox(['--seed', '9']);
    await second.run.stop();
    expect(second.apiKey).toBe(first.apiKey);
    const fixed = await startSandbox(['--api-key', 'sk_test_fixedkey123']);
    await fixed.run.stop();
    expect(fixed.apiKey).toBe('sk_test_fixedkey123');
  });

  it('gives every new webhook the --fault faults, prints each attempt, and `sandbox clock` / `sandbox faults` drive it', async () => {
    const { run, url, apiKey } = await startSandbox(['--seed', '1', '--fault', 'drop=2', '--fault', 'duplicate']);
    try {
      const call = apiClient({ url, apiKey });
      const webhook = (await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['customer.*'] })).body.data;
      expect((await call('GET', `/sandbox/webhooks/${webhook.id}/faults`)).body.data).toMatchObject({ drop_first_attempts: 2, duplicate: true });
      await call('POST', '/customers', { name: 'Huber' });
      await run.waitForOutput(/customer\.created +evt_\w+ +attempt 1: 503 → retrying/);

      const clock = await runCommand(['sandbox', 'clock', '--advance', '1d', '--url', url, '--api-key', apiKey]);
      expect(clock).toMatchObject({ exitCode: 0, stdout: '2026-01-06T08:00:02.000Z\n' });
      await run.waitForOutput(/attempt 3: connection → retrying/);

      const faults = await runCommand(['sandbox', 'faults', webhook.id, '--out-of-order', '3', '--url', url], { env: { ACCT_SANDBOX_API_KEY: apiKey } });
      expect(faults.exitCode).toBe(0);
      expect(JSON.parse(faults.stdout)).toEqual({ duplicate: false, out_of_order: { window: 3, max_wait_ms: 1000 }, delay_ms: 0, timeout_first_attempts: 0, drop_first_attempts: 0 });
    } finally {
      await run.stop();
    }
  });

  it.each([
    [['sandbox', '--fault', 'sometimes'], 'INVALID_OPTION', 2],
    [['sandbox', '--fault', 'out-of-order=1'], 'INVALID_OPTION', 2],
    [['sandbox', '--seed', 'abc'], 'INVALID_OPTION', 2],
    [['sandbox', '--api-key', 'sk_live_0123456789'], 'INVALID_OPTION', 2],
    [['sandbox', 'clock', '--url', 'http://127.0.0.1:9/v1'], 'INVALID_OPTION', 2],
    [['sandbox', 'clock', '--url', 'http://127.0.0.1:9/v1', '--api-key', 'sk_test_0123456789'], 'UNREACHABLE', 1],
  ])('%j → one line, %s', async (argv, code, exitCode) => {
    expectOneLineError(await runCommand(argv), code, exitCode);
  });

  it('refuses a port in use with one line, as listen and dashboard do', async () => {
    const { run, url } = await startSandbox([]);
    try {
      const port = new URL(url).port;
      const taken = await runCommand(['sandbox', '--port', port]);
      expectOneLineError(taken, 'INVALID_OPTION', 2);
      expect(taken.stderr).toBe(`acct-webhook sandbox: port ${port} is already in use; pick another with --port [INVALID_OPTION]\n`);
    } finally {
      await run.stop();
    }
  });

  it('answers a refused request with the API code: a wrong key is UNAUTHORIZED', async () => {
    const { run, url } = await startSandbox([]);
    try {
      expectOneLineError(await runCommand(['sandbox', 'clock', '--url', url, '--api-key', 'sk_test_wrongwrong']), 'UNAUTHORIZED', 1);
    } finally {
      await run.stop();
    }
  });
});
