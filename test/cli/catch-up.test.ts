import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, sqliteStore, Webhooks } from '../../src/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { apiClient } from '../sandbox/helpers.js';
import { expectOneLineError, runCommand, temporaryDirectory } from './helpers.js';

/*
 * `acct-webhook catch-up` against the sandbox over HTTP: --dry-run reports what the receiver's
 * store never handled, by type; the live run stores the events in the inbox of that store, where
 * the receiver serving it (inbox mode) runs them once; the next run resumes from the checkpoint.
 */

const workspace = temporaryDirectory('cli-catch-up');
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox({ seed: 43, plan: 'business' });
  const call = apiClient(sandbox);
  for (const name of ['Huber GmbH', 'Gruber KG']) expect((await call('POST', '/customers', { name })).status).toBe(201);
});
afterAll(() => sandbox.close());

describe('acct-webhook catch-up', () => {
  const db = join(workspace.path, 'webhook-events.db');
  const since = () => new Date(sandbox.now() - 3_600_000).toISOString();
  const env = () => ({ ACCT_API_KEY: sandbox.apiKey, ACCT_API_BASE_URL: sandbox.baseUrl });

  it('reports, stores in the inbox, and resumes from the checkpoint; the receiver runs each event once', async () => {
    // The receiver's store exists (the receiver ran before the outage).
    await sqliteStore(db).close();
    const report = await runCommand(['catch-up', '--dry-run', '--since', since(), '--db', db, '--json'], { env: env() });
    expect(report.exitCode, report.stderr).toBe(1);
    expect(JSON.parse(report.stdout)).toMatchObject({ read: 2, handled: 0, unhandled: 2, byType: { 'customer.created': [{ state: 'missing' }, { state: 'missing' }] } });
    const text = await runCommand(['catch-up', '--dry-run', '--since', since(), '--db', db], { env: env() });
    expect(text.stdout).toMatch(/^2 events from .+: 0 handled, 2 not\.\ncustomer\.created: 2\n {2}evt_\w+ {2}\S+ {2}missing\n/);

    const run = await runCommand(['catch-up', '--since', since(), '--api-key', sandbox.apiKey, '--base-url', sandbox.baseUrl, '--db', db, '--json']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ read: 2, handled: 2, queued: 2, duplicates: 0, failed: 0, startedFrom: 'since' });
    expect(run.stdout).not.toContain(sandbox.apiKey);

    // The receiver serving the store runs them.
    const seen: string[] = [];
    const store = sqliteStore(db);
    const receiver = createReceiver({ secret: 'whsec_receiverOfTheStore000000000000', store, inbox: { pollIntervalMs: 5 }, ordering: true, logger: false, handlers: new Webhooks().onAny((event) => void seen.push(event.id)) });
    await receiver.inbox.drain();
    expect(seen).toHaveLength(2);
    expect(JSON.parse((await runCommand(['catch-up', '--dry-run', '--since', since(), '--db', db, '--json'], { env: env() })).stdout)).toMatchObject({ unhandled: 0, handled: 2 });

    // New events, then a run without --since: only those.
    expect((await apiClient(sandbox)('POST', '/customers', { name: 'Maier OG' })).status).toBe(201);
    const resumed = await runCommand(['catch-up', '--db', db], { env: env() });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/^Read 1 events from the checkpoint: 1 stored in the inbox, 0 handled before, 0 quarantined, 0 failed\.\nCheckpoint "default": after evt_\w+ \(.+\)\.\n$/);
    await receiver.inbox.drain();
    expect(seen).toHaveLength(3);
    await receiver.close();
    await store.close();
  });

  it('refuses what cannot work, in one line each', async () => {
    const fresh = join(workspace.path, 'fresh.db');
    await sqliteStore(fresh).close();
    expectOneLineError(await runCommand(['catch-up', '--db', fresh], { env: {} }), 'INVALID_OPTION', 2);
    expectOneLineError(await runCommand(['catch-up', '--db', fresh, '--api-key', 'sk_test_x'], { env: {} }), 'INVALID_OPTION', 2);
    expectOneLineError(await runCommand(['catch-up', '--db', fresh, '--since', 'yesterday'], { env: env() }), 'INVALID_OPTION', 2);
    expectOneLineError(await runCommand(['catch-up', '--db', fresh, '--types', 'invoice.lost'], { env: env() }), 'UNKNOWN_EVENT_TYPE', 2);
    expectOneLineError(await runCommand(['catch-up', '--db', fresh], { env: env() }), 'NO_CHECKPOINT', 1);
    expectOneLineError(await runCommand(['catch-up', '--db', join(workspace.path, 'missing.db'), '--since', '1h'], { env: env() }), 'UNREADABLE_FILE', 2);
  });
});
