import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { METRICS_PACKAGES } from '../../src/cli/dispatcher/run.js';
import type { WebhookRegistration } from '../../src/dispatcher/records.js';
import { CommandRun, runCommand, temporaryDirectory, waitFor, type CliResult } from './helpers.js';
import { startRecorder } from './servers.js';

const workspace = temporaryDirectory('cli-dispatcher-metrics');
afterAll(() => workspace.remove());

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format's samples (`name{label="value",…} number`), comments left out. */
function samples(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
      if (!match) throw new Error(`Not a Prometheus sample: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, value]) => [key!, value!]));
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/** The value of the one sample named `name` whose labels include `labels`. */
function valueOf(all: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = all.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

function json<T>(run: CliResult): T {
  expect(run.exitCode, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T;
}

describe('acct-webhook dispatcher run --metrics-port', () => {
  it('serves Prometheus text on 127.0.0.1 with the attempts, queue and registrations after a known set of attempts', async () => {
    const db = join(workspace.path, 'metrics.db');
    const healthy = await startRecorder(() => ({ status: 204 }));
    const failing = await startRecorder(() => ({ status: 503 }));
    const cli = (args: readonly string[]) => runCommand(['dispatcher', '--db', db, ...args]);
    try {
      const ok = json<WebhookRegistration>(await cli(['webhooks', 'add', '--url', healthy.url, '--allow-insecure-urls', '--json']));
      const down = json<WebhookRegistration>(await cli(['webhooks', 'add', '--url', failing.url, '--allow-insecure-urls', '--json']));
      for (const type of ['invoice.paid', 'payment.received', 'uva.submitted']) expect((await cli(['emit', type])).exitCode).toBe(0);

      const run = new CommandRun(['dispatcher', '--db', db, 'run', '--allow-insecure-urls', '--metrics-port', '0', '--metrics-per-webhook']);
      try {
        await waitFor(() => /Metrics \(Prometheus\): http:\/\/127\.0\.0\.1:\d+\/metrics/.test(run.stderr), `the metrics URL; got ${run.stderr}`);
        const url = /http:\/\/127\.0\.0\.1:\d+\/metrics/.exec(run.stderr)![0];
        // 3 events × 2 webhooks: 3 delivered, 3 failed (retried in a minute, so they stay scheduled).
        await waitFor(() => healthy.requests.length === 3 && failing.requests.length === 3 && run.stdout.split('\n').filter(Boolean).length === 6, 'six attempts');

        const response = await fetch(url);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
        const all = samples(await response.text());
        expect(valueOf(all, 'acct_webhook_dispatcher_attempts_total', { outcome: 'delivered', status_class: '2xx', webhook_id: ok.id })).toBe(3);
        expect(valueOf(all, 'acct_webhook_dispatcher_attempts_total', { outcome: 'failed', status_class: '5xx', webhook_id: down.id })).toBe(3);
        expect(valueOf(all, 'acct_webhook_dispatcher_attempt_duration_count', { outcome: 'delivered', webhook_id: ok.id })).toBe(3);
        expect(valueOf(all, 'acct_webhook_dispatcher_delivery_latency_count', { webhook_id: ok.id })).toBe(3);
        expect(valueOf(all, 'acct_webhook_dispatcher_queue_depth', { state: 'scheduled' })).toBe(3);
        expect(valueOf(all, 'acct_webhook_dispatcher_queue_depth', { state: 'due' })).toBe(0);
        expect(valueOf(all, 'acct_webhook_dispatcher_queue_depth', { state: 'in_flight' })).toBe(0);
        expect(valueOf(all, 'acct_webhook_dispatcher_queue_oldest_due_age')).toBe(0);
        expect(valueOf(all, 'acct_webhook_dispatcher_webhooks', { state: 'active' })).toBe(1);
        expect(valueOf(all, 'acct_webhook_dispatcher_webhooks', { state: 'failing' })).toBe(1);
        expect(valueOf(all, 'acct_webhook_dispatcher_webhooks', { state: 'disabled' })).toBe(0);
        expect(valueOf(all, 'acct_webhook_dispatcher_webhook_failure_streak', { webhook_id: down.id })).toBe(3);
        expect(valueOf(all, 'acct_webhook_dispatcher_webhook_failure_streak', { webhook_id: ok.id })).toBe(0);

        expect((await fetch(url.replace('/metrics', '/other'))).status).toBe(404);
      } finally {
        expect(await run.stop()).toBe(0);
      }

      // The state is in the list too.
      const list = json<WebhookRegistration[]>(await cli(['webhooks', 'list', '--json']));
      expect(list.map((webhook) => [webhook.id, webhook.failure_streak, webhook.in_flight])).toEqual([
        [ok.id, 0, 0],
        [down.id, 3, 0],
      ]);
      const table = await cli(['webhooks', 'list']);
      expect(table.stdout).toMatch(/failing +│? *3 since/);
    } finally {
      await Promise.all([healthy.close(), failing.close()]);
    }
  });

  it('without --metrics-per-webhook, no series carries a webhook id', async () => {
    const db = join(workspace.path, 'no-labels.db');
    const receiver = await startRecorder(() => ({ status: 204 }));
    try {
      expect((await runCommand(['dispatcher', '--db', db, 'webhooks', 'add', '--url', receiver.url, '--allow-insecure-urls'])).exitCode).toBe(0);
      expect((await runCommand(['dispatcher', '--db', db, 'emit', 'invoice.paid'])).exitCode).toBe(0);
      const run = new CommandRun(['dispatcher', '--db', db, 'run', '--allow-insecure-urls', '--metrics-port', '0']);
      try {
        await waitFor(() => /127\.0\.0\.1:\d+\/metrics/.test(run.stderr) && receiver.requests.length === 1 && run.stdout.includes('delivered'), 'the attempt');
        const all = samples(await (await fetch(/http:\/\/127\.0\.0\.1:\d+\/metrics/.exec(run.stderr)![0])).text());
        expect(valueOf(all, 'acct_webhook_dispatcher_attempts_total', { outcome: 'delivered' })).toBe(1);
        expect(all.filter((sample) => 'webhook_id' in sample.labels)).toEqual([]);
      } finally {
        expect(await run.stop()).toBe(0);
      }
    } finally {
      await receiver.close();
    }
  });
});

describe('the packages --metrics-port loads', () => {
  it('are optional peer dependencies of acct-webhook: never bundled, never installed for a library user', () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    for (const name of METRICS_PACKAGES) {
      expect(manifest.peerDependencies[name], name).toEqual(expect.any(String));
      expect(manifest.peerDependenciesMeta[name], name).toEqual({ optional: true });
      expect(manifest.dependencies[name], name).toBeUndefined();
    }
  });
});
