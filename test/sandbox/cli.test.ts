import { describe, expect, it } from 'vitest';
import { CommandRun, expectOneLineError, runCommand } from '../cli/helpers.js';
import { banner } from '../../src/cli/sandbox-run.js';
import { DEFAULT_SANDBOX_URL } from '../../src/cli/sandbox-options.js';
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

  it('gives every new webhook the --fault faults, lists them in the banner, prints each attempt with its webhook, and `sandbox clock` / `sandbox faults` drive it', async () => {
    const { run, url, apiKey } = await startSandbox(['--seed', '1', '--fault', 'drop=2', '--fault', 'duplicate']);
    try {
      await run.waitForOutput(/ {2}Faults: +duplicate, drop=2 on new webhooks\n/);
      await run.waitForOutput(/ {2}Clear every fault: +acct-webhook sandbox faults --clear --url \S+ --api-key \S+\n/);
      const call = apiClient({ url, apiKey });
      const webhook = (await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['customer.*'] })).body.data;
      expect((await call('GET', `/sandbox/webhooks/${webhook.id}/faults`)).body.data).toMatchObject({ drop_first_attempts: 2, duplicate: true });
      await call('POST', '/customers', { name: 'Huber' });
      await run.waitForOutput(new RegExp(`customer\\.created +evt_\\w+ → ${webhook.id} http://127\\.0\\.0\\.1:9/hook +attempt 1: 503 → retrying`));

      const clock = await runCommand(['sandbox', 'clock', '--advance', '1d', '--url', url, '--api-key', apiKey]);
      expect(clock).toMatchObject({ exitCode: 0, stdout: '2026-01-06T08:00:02.000Z\n' });
      await run.waitForOutput(new RegExp(`→ ${webhook.id} http://127\\.0\\.0\\.1:9/hook +attempt 3: connection → retrying`));

      const faults = await runCommand(['sandbox', 'faults', webhook.id, '--out-of-order', '3', '--url', url], { env: { ACCT_SANDBOX_API_KEY: apiKey } });
      expect(faults.exitCode).toBe(0);
      expect(JSON.parse(faults.stdout)).toEqual({ duplicate: false, out_of_order: { window: 3, max_wait_ms: 1000 }, delay_ms: 0, timeout_first_attempts: 0, drop_first_attempts: 0 });
    } finally {
      await run.stop();
    }
  });

  it('prints when a webhook is disabled (when, why, how to enable it) and when it is enabled again', async () => {
    const { run, url, apiKey } = await startSandbox(['--seed', '4']);
    try {
      const call = apiClient({ url, apiKey });
      const webhook = (await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['customer.*'] })).body.data;
      for (let day = 0; day < 4; day++) {
        await call('POST', '/customers', { name: `Kunde ${day}` });
        await call('POST', '/sandbox/clock', { advance: '1d' });
      }
      const [line] = await run.waitForOutput(new RegExp(`^\\S+ {2}webhook ${webhook.id} http://127\\.0\\.0\\.1:9/hook: Disabled: .+$`, 'm'));
      expect(line).toMatch(
        /^2026-01-08T08:00:0\dZ?.*: Disabled: every attempt failed for 72 h of sandbox time \(from 2026-01-05T08:00:02\.000Z to 2026-01-08T08:00:0\d\.000Z\), the platform's disable rule\. New events are kept as skipped; enable it with PATCH \/v1\/webhooks\/wh_\w+ \{"status": "active", "replay_skipped": true\}\.$/,
      );
      await call('PATCH', `/webhooks/${webhook.id}`, { status: 'active', replay_skipped: true });
      await run.waitForOutput(new RegExp(`webhook ${webhook.id} http://127\\.0\\.0\\.1:9/hook: Active again: \\d+ skipped events? queued for delivery\\.`));
    } finally {
      await run.stop();
    }
  });

  it('--json: the start-up line with the faults, each attempt with its webhook, each status change, one JSON object a line', async () => {
    const run = new CommandRun(['sandbox', '--port', '0', '--seed', '6', '--json', '--fault', 'drop=7']);
    try {
      const [startLine] = await run.waitForOutput(/^\{"url".+$/m);
      const start = JSON.parse(startLine) as { url: string; api_key: string; seed: number; faults: { new_webhooks: { drop_first_attempts: number } } };
      expect(start).toMatchObject({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/v1$/), api_key: expect.stringMatching(/^sk_test_/), seed: 6, faults: { new_webhooks: { drop_first_attempts: 7 }, webhooks: [] } });
      const call = apiClient({ url: start.url, apiKey: start.api_key });
      const webhook = (await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['customer.*'] })).body.data;
      await call('POST', '/customers', { name: 'Huber' });
      const [attemptLine] = await run.waitForOutput(/^\{"attempted_at".+$/m);
      expect(JSON.parse(attemptLine)).toMatchObject({ event_type: 'customer.created', webhook_id: webhook.id, url: 'http://127.0.0.1:9/hook', attempt_number: 1, result: '503', status: 'retrying' });
      await call('PATCH', `/webhooks/${webhook.id}`, { status: 'disabled' });
      const [statusLine] = await run.waitForOutput(/^\{"webhook_status".+$/m);
      expect(JSON.parse(statusLine)).toEqual({
        webhook_status: { webhook_id: webhook.id, url: 'http://127.0.0.1:9/hook', status: 'disabled', at: expect.any(String), disabled_reason: 'manual', replayed: null, message: expect.stringMatching(/^Disabled: it was disabled through the API/) },
      });
    } finally {
      await run.stop();
    }
  });

  it('`sandbox faults --clear` turns every fault off: every webhook\'s and those of webhooks registered later', async () => {
    const { run, url, apiKey } = await startSandbox(['--fault', 'drop=1', '--fault', 'delay=5']);
    try {
      const call = apiClient({ url, apiKey });
      const first = (await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/a', events: ['*'] })).body.data;
      await call('PUT', `/sandbox/webhooks/${first.id}/faults`, { duplicate: true });
      const second = (await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/b', events: ['*'] })).body.data;
      const before = await runCommand(['sandbox', 'faults', '--url', url, '--api-key', apiKey]);
      expect(JSON.parse(before.stdout)).toMatchObject({ new_webhooks: { drop_first_attempts: 1, delay_ms: 5 }, webhooks: [{ webhook_id: first.id, faults: { duplicate: true } }, { webhook_id: second.id, faults: { drop_first_attempts: 1 } }] });

      const cleared = await runCommand(['sandbox', 'faults', '--clear', '--url', url, '--api-key', apiKey]);
      expect(cleared.exitCode).toBe(0);
      const off = { duplicate: false, out_of_order: null, delay_ms: 0, timeout_first_attempts: 0, drop_first_attempts: 0 };
      expect(JSON.parse(cleared.stdout)).toEqual({
        new_webhooks: off,
        webhooks: [
          { webhook_id: first.id, url: 'http://127.0.0.1:9/a', faults: off },
          { webhook_id: second.id, url: 'http://127.0.0.1:9/b', faults: off },
        ],
      });
      const later = (await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/c', events: ['*'] })).body.data;
      expect((await call('GET', `/sandbox/webhooks/${later.id}/faults`)).body.data).toEqual(off);

      await call('PUT', `/sandbox/webhooks/${later.id}/faults`, { drop_first_attempts: 3 });
      const one = await runCommand(['sandbox', 'faults', later.id, '--clear', '--url', url, '--api-key', apiKey]);
      expect(JSON.parse(one.stdout)).toEqual(off);
    } finally {
      await run.stop();
    }
  });

  it('--accounts 2 --json: the start-up line lists every account’s key and business', async () => {
    const run = new CommandRun(['sandbox', '--port', '0', '--seed', '6', '--json', '--accounts', '2']);
    try {
      const [startLine] = await run.waitForOutput(/^\{"url".+$/m);
      const start = JSON.parse(startLine) as { url: string; api_key: string; accounts: { api_key: string; business: { id: string; name: string; uid_number: string } }[] };
      expect(start.accounts).toEqual([
        { api_key: start.api_key, business: { id: expect.stringMatching(/^biz_/), name: 'Sandbox Handels GmbH', uid_number: 'ATU12345675' } },
        { api_key: expect.stringMatching(/^sk_test_/), business: { id: expect.stringMatching(/^biz_/), name: 'Sandbox Handels 2 GmbH', uid_number: 'ATU12345684' } },
      ]);
      const me = await apiClient({ url: start.url, apiKey: start.accounts[1]!.api_key })('GET', '/me');
      expect(me.body.data.business).toEqual(start.accounts[1]!.business);
    } finally {
      await run.stop();
    }
  });

  it('prints each account’s key and business in the banner: one line for one account, a list for several', () => {
    const off = { duplicate: false, out_of_order: null, delay_ms: 0, timeout_first_attempts: 0, drop_first_attempts: 0 };
    const faults = { new_webhooks: off, webhooks: [] };
    const first = { apiKey: 'sk_test_0123456789', business: { id: 'biz_1', name: 'Sandbox Handels GmbH', uid_number: 'ATU12345675' } };
    const second = { apiKey: 'sk_test_9876543210', business: { id: 'biz_2', name: 'Sandbox Handels 2 GmbH', uid_number: 'ATU12345684' } };
    const one = banner({ url: DEFAULT_SANDBOX_URL, apiKey: first.apiKey, accounts: [first] }, { plan: 'pro' }, '2026-01-05T08:00:00.000Z', faults);
    expect(one).toContain('  Business:  Sandbox Handels GmbH (biz_1, UID ATU12345675)');
    const two = banner({ url: DEFAULT_SANDBOX_URL, apiKey: first.apiKey, accounts: [first, second] }, { plan: 'pro' }, '2026-01-05T08:00:00.000Z', faults);
    expect(two).toEqual(
      expect.arrayContaining([
        '  Test key:  sk_test_0123456789   (Authorization: Bearer …)',
        "  Accounts:  2, each key its own data, webhooks and events (another account's id answers 403)",
        '    1. sk_test_0123456789  Sandbox Handels GmbH (biz_1, UID ATU12345675)',
        '    2. sk_test_9876543210  Sandbox Handels 2 GmbH (biz_2, UID ATU12345684)',
      ]),
    );
    expect(two.some((line) => line.startsWith('  Business:'))).toBe(false);
  });

  it('prints --url in its commands only off the default address, which `sandbox clock` and `sandbox faults` use by default', () => {
    const off = { duplicate: false, out_of_order: null, delay_ms: 0, timeout_first_attempts: 0, drop_first_attempts: 0 };
    const faults = { new_webhooks: off, webhooks: [] };
    const options = { plan: 'pro' as const };
    const atDefault = banner({ url: DEFAULT_SANDBOX_URL, apiKey: 'sk_test_0123456789' }, options, '2026-01-05T08:00:00.000Z', faults);
    expect(atDefault).toContain('  Advance the clock:  acct-webhook sandbox clock --advance 1d --api-key sk_test_0123456789');
    expect(atDefault).toContain('  Faults:    none on new webhooks');
    expect(atDefault.some((line) => line.includes('faults --clear'))).toBe(false);
    const elsewhere = banner({ url: 'http://127.0.0.1:4999/v1', apiKey: 'sk_test_0123456789' }, options, '2026-01-05T08:00:00.000Z', faults);
    expect(elsewhere).toContain('  Advance the clock:  acct-webhook sandbox clock --advance 1d --url http://127.0.0.1:4999/v1 --api-key sk_test_0123456789');
  });

  it.each([
    [['sandbox', '--fault', 'sometimes'], 'INVALID_OPTION', 2],
    [['sandbox', '--fault', 'out-of-order=1'], 'INVALID_OPTION', 2],
    [['sandbox', '--seed', 'abc'], 'INVALID_OPTION', 2],
    [['sandbox', '--api-key', 'sk_live_0123456789'], 'INVALID_OPTION', 2],
    [['sandbox', 'clock', '--url', 'http://127.0.0.1:9/v1'], 'INVALID_OPTION', 2],
    [['sandbox', 'clock', '--url', 'http://127.0.0.1:9/v1', '--api-key', 'sk_test_0123456789'], 'UNREACHABLE', 1],
    [['sandbox', 'faults', '--drop', '2', '--api-key', 'sk_test_0123456789'], 'INVALID_OPTION', 2],
    [['sandbox', 'faults', 'wh_1', '--clear', '--drop', '2', '--api-key', 'sk_test_0123456789'], 'INVALID_OPTION', 2],
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
