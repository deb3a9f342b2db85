import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, cliEnvironment, CliProcess } from '../cli/process.js';
import { temporaryDirectory } from '../cli/helpers.js';
import { apiClient } from './helpers.js';

/* The built `acct-webhook sandbox` as a user starts it: a process of its own, stopped by a signal. */

describe('acct-webhook sandbox in a process', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('serves /v1 with the printed key, keeps --db, and stops on %s: exit 0', async (signal) => {
    const directory = temporaryDirectory('acct-sandbox-process');
    const database = join(directory.path, 'sandbox.db');
    const sandbox = new CliProcess(['sandbox', '--port', '0', '--seed', '3', '--db', database]);
    try {
      const [, url] = await sandbox.waitForOutput(/Sandbox on (http:\/\/127\.0\.0\.1:\d+\/v1)/);
      const [, apiKey] = await sandbox.waitForOutput(/Test key: +(sk_test_\w+)/);
      const call = apiClient({ url: url!, apiKey: apiKey! });
      const customer = await call('POST', '/customers', { name: 'Huber' });
      expect(customer.status).toBe(201);
      const stopped = await sandbox.stop(signal);
      expect(stopped).toMatchObject({ exitCode: 0, signal: null });
      expect(stopped.stderr).toContain('Stopped.');
      expect(existsSync(database)).toBe(true);
    } finally {
      sandbox.kill();
      directory.remove();
    }
  });
});

describe('the banner of acct-webhook sandbox', () => {
  it('prints commands that run exactly as printed, in a shell with acct-webhook on the PATH', async () => {
    const directory = temporaryDirectory('acct-sandbox-banner');
    // `acct-webhook` on the PATH, as an installed package's bin would be.
    const bin = join(directory.path, '.bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'acct-webhook'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
    const sandbox = new CliProcess(['sandbox', '--port', '0', '--seed', '8', '--fault', 'drop=1']);
    try {
      const [, url] = await sandbox.waitForOutput(/Sandbox on (http:\/\/127\.0\.0\.1:\d+\/v1)/);
      const [, advance] = await sandbox.waitForOutput(/^ {2}Advance the clock: +(.+)$/m);
      const [, clear] = await sandbox.waitForOutput(/^ {2}Clear every fault: +(.+)$/m);
      const [, apiKey] = await sandbox.waitForOutput(/Test key: +(sk_test_\w+)/);
      await apiClient({ url: url!, apiKey: apiKey! })('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['*'] });
      const shell = (command: string) =>
        spawnSync('sh', ['-c', command], { cwd: directory.path, encoding: 'utf8', env: { ...cliEnvironment(), PATH: `${bin}:${process.env.PATH ?? ''}` } });

      const advanced = shell(advance!);
      expect(advanced, advanced.stderr).toMatchObject({ status: 0, stdout: '2026-01-06T08:00:01.000Z\n' });
      const cleared = shell(clear!);
      expect(cleared.status, cleared.stderr).toBe(0);
      const off = { duplicate: false, out_of_order: null, delay_ms: 0, timeout_first_attempts: 0, drop_first_attempts: 0 };
      expect(JSON.parse(cleared.stdout)).toMatchObject({ new_webhooks: off, webhooks: [{ faults: off }] });
    } finally {
      await sandbox.stop();
      directory.remove();
    }
  });
});

describe('acct-webhook sandbox --accounts', () => {
  it('prints every account’s key and business; each key reaches its own account and not the other’s', async () => {
    const sandbox = new CliProcess(['sandbox', '--port', '0', '--seed', '4', '--accounts', '2']);
    try {
      const [, url] = await sandbox.waitForOutput(/Sandbox on (http:\/\/127\.0\.0\.1:\d+\/v1)/);
      await sandbox.waitForOutput(/^ {4}2\. .+$/m);
      const accounts = [...sandbox.stdout.matchAll(/^ {4}(\d)\. (sk_test_\w+) {2}(.+) \((biz_\w+), UID (ATU\d{8})\)$/gm)].map(([, n, apiKey, name, id, uid]) => ({ n, apiKey: apiKey!, business: { id, name, uid_number: uid } }));
      expect(accounts.map((account) => account.n)).toEqual(['1', '2']);
      expect(sandbox.stdout).toContain(`Test key:  ${accounts[0]!.apiKey}`);
      expect(sandbox.stdout).toMatch(/Accounts: +2,/);
      const [first, second] = accounts.map((account) => apiClient({ url: url!, apiKey: account.apiKey }));
      for (const [index, call] of [first!, second!].entries()) expect((await call('GET', '/me')).body.data.business).toEqual(accounts[index]!.business);
      const customer = await second!('POST', '/customers', { name: 'Huber' });
      expect(customer.status).toBe(201);
      expect((await first!('GET', `/customers/${customer.body.data.id}`)).body.error).toMatchObject({ code: 'FORBIDDEN', details: { resource: 'customer', id: customer.body.data.id } });
    } finally {
      await sandbox.stop();
    }
  });

  it('refuses --accounts outside 1 to 10 with one line and exit 2', () => {
    const refused = spawnSync(process.execPath, [CLI, 'sandbox', '--accounts', '11'], { encoding: 'utf8', env: cliEnvironment() });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('--accounts');
  });
});
