import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Delivery, DeliveryDetail, WebhookRegistration } from '../../src/dispatcher/records.js';
import { verifySignature } from '../../src/signing/signature.js';
import { verifyStandardWebhook } from '../../src/signing/standard-webhooks.js';
import { CommandRun, expectOneLineError, runCommand, temporaryDirectory, waitFor, type CliResult } from './helpers.js';
import { closedPort, closeServer, listenOnLoopback, startRecorder, type RecordedRequest, type Recorder } from './servers.js';

const workspace = temporaryDirectory('cli-dispatcher');
const db = join(workspace.path, 'dispatch.db');
let receiver: Recorder;
beforeAll(async () => {
  receiver = await startRecorder();
});
afterAll(async () => {
  await receiver.close();
  workspace.remove();
});

/** `acct-webhook dispatcher --db <the test's file> …args` */
function dispatcher(args: readonly string[], dbFile = db): Promise<CliResult> {
  return runCommand(['dispatcher', '--db', dbFile, ...args]);
}

function json<T>(run: CliResult): T {
  expect(run.exitCode, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T;
}

function signedWith(request: RecordedRequest, secret: string): boolean {
  try {
    verifySignature({ payload: request.body, signature: String(request.headers['x-svc-signature']), timestamp: String(request.headers['x-svc-timestamp']), secret });
    return true;
  } catch {
    return false;
  }
}

// One database through its life, in order: each step builds on the one before.
describe.sequential('acct-webhook dispatcher on a SQLite file', () => {
  let webhook: WebhookRegistration & { secret: string };
  let delivery: Delivery;

  it('refuses to read a database that does not exist (and does not create one)', async () => {
    expectOneLineError(await dispatcher(['webhooks', 'list']), 'UNREADABLE_FILE', 2);
  });

  it('webhooks add: refuses a plain http receiver without --allow-insecure-urls, naming the flag', async () => {
    const run = await dispatcher(['webhooks', 'add', '--url', receiver.url]);
    expectOneLineError(run, 'INVALID_URL', 2);
    expect(run.stderr).toContain('--allow-insecure-urls');
    expect(run.stderr).not.toContain('allowInsecureUrls');
  });

  it('webhooks add: registers the receiver and prints its secret', async () => {
    webhook = json(await dispatcher(['webhooks', 'add', '--url', receiver.url, '--events', 'invoice.*,payment.failed', '--header', 'x-api-key: k-123', '--allow-insecure-urls', '--json']));
    expect(webhook).toMatchObject({ url: receiver.url, events: ['invoice.*', 'payment.failed'], status: 'active', headers: ['x-api-key'] });
    expect(webhook.secret).toMatch(/^whsec_/);
  });

  it('webhooks list: shows it, with header names but never the secret or header values', async () => {
    const run = await dispatcher(['webhooks', 'list']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^id +url +events +state +failing +in flight +skipped +headers +created \\(UTC\\) +scheme +public key\\n${webhook.id} +${receiver.url} +invoice\\.\\*,payment\\.failed +active +- +0 +0 +x-api-key `),
    );
    const listed = json<WebhookRegistration[]>(await dispatcher(['webhooks', 'list', '--json']));
    expect(listed.map((entry) => entry.id)).toEqual([webhook.id]);
    for (const output of [run.stdout, JSON.stringify(listed)]) {
      expect(output).not.toContain(webhook.secret);
      expect(output).not.toContain('k-123');
    }
  });

  it('webhooks list: a table with borders on a terminal', async () => {
    const run = await runCommand(['dispatcher', '--db', db, 'webhooks', 'list'], { terminalColumns: 160 });
    expect(run.stdout).toMatch(/^┌─+┬/);
    expect(run.stdout).toMatch(/│ id +│ url +│ events/);
  });

  it('emit: queues the sample for the subscribed webhook only', async () => {
    const paid = json<{ event: { id: string; type: string }; queuedFor: string[] }>(await dispatcher(['emit', 'invoice.paid', '--set', 'data.object.amount=5000', '--json']));
    expect(paid.event.type).toBe('invoice.paid');
    expect(paid.queuedFor).toEqual([webhook.id]);
    const customer = json<{ queuedFor: string[] }>(await dispatcher(['emit', 'customer.created', '--json']));
    expect(customer.queuedFor).toEqual([]);
  });

  it('run: refuses to start without --allow-insecure-urls while a webhook is on this machine, and attempts nothing', async () => {
    const run = await dispatcher(['run']);
    expectOneLineError(run, 'INVALID_URL', 2);
    expect(run.stderr).toContain(webhook.id);
    expect(run.stderr).toContain('--allow-insecure-urls');
    expect(receiver.requests).toHaveLength(0);
    expect(json<Delivery[]>(await dispatcher(['deliveries', 'list', '--json'])).map((listed) => listed.attempt_count)).toEqual([0]);
  });

  it('run: delivers, signed with the secret, with the custom header; Ctrl-C stops it gracefully', async () => {
    const run = new CommandRun(['dispatcher', '--db', db, 'run', '--allow-insecure-urls']);
    await run.waitForOutput(/200 delivered +invoice\.paid +evt_\S+ +→ wh_\S+ +attempt 1/);
    expect(await run.stop('SIGINT')).toBe(0);
    expect(run.stderr).toMatch(/Ctrl-C: finishing the attempts in flight…\nStopped\.\n$/);
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(signedWith(request!, webhook.secret)).toBe(true);
    expect(request!.headers['x-api-key']).toBe('k-123');
    expect(JSON.parse(request!.body.toString('utf8'))).toMatchObject({ type: 'invoice.paid', data: { object: { amount: 5000 } } });
  });

  it('deliveries list and show: the delivery and its attempt', async () => {
    const deliveries = json<Delivery[]>(await dispatcher(['deliveries', 'list', '--json']));
    expect(deliveries).toHaveLength(1);
    delivery = deliveries[0]!;
    expect(delivery).toMatchObject({ event_type: 'invoice.paid', webhook_id: webhook.id, status: 'delivered', attempt_count: 1 });
    const table = await dispatcher(['deliveries', 'list', '--status', 'delivered']);
    expect(table.stdout).toMatch(new RegExp(`\\n${delivery.id} +invoice\\.paid +${delivery.event_id} +${webhook.id} +delivered +1 `));
    const shown = await dispatcher(['deliveries', 'show', delivery.id]);
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout).toMatch(/\n1 +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +200 +\d+ +delivered /);
  });

  it('deliveries retry: refuses before any attempt without --allow-insecure-urls, naming the flag; no ssrf attempt is logged', async () => {
    const run = await dispatcher(['deliveries', 'retry', delivery.id]);
    expectOneLineError(run, 'INVALID_URL', 2);
    expect(run.stderr).toContain('--allow-insecure-urls');
    expect(receiver.requests).toHaveLength(1);
    const shown = json<DeliveryDetail>(await dispatcher(['deliveries', 'show', delivery.id, '--json']));
    expect(shown.attempts.map((attempt) => attempt.error_kind)).toEqual([null]);
    expect((await dispatcher(['deliveries', 'export'])).stdout).not.toContain('ssrf');
  });

  it('webhooks rotate-secret: the next attempt is signed with the new secret', async () => {
    const rotated = json<{ id: string; secret: string }>(await dispatcher(['webhooks', 'rotate-secret', webhook.id, '--json']));
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(webhook.secret);
    const retried = await dispatcher(['deliveries', 'retry', delivery.id, '--allow-insecure-urls']);
    expect(retried.exitCode).toBe(0);
    expect(retried.stdout).toMatch(/^Attempt 2 \(manual\): 200 in \d+ ms → delivered\n/);
    const last = receiver.requests.at(-1)!;
    expect(signedWith(last, rotated.secret)).toBe(true);
    expect(signedWith(last, webhook.secret)).toBe(false);
  });

  it('deliveries export: JSON Lines, one attempt a line, to a file or stdout', async () => {
    const file = join(workspace.path, 'export.jsonl');
    const run = await dispatcher(['deliveries', 'export', '--out', file]);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe(`2 attempts written to ${file}\n`);
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { delivery_id: string; attempt_number: number });
    expect(lines.map((line) => [line.delivery_id, line.attempt_number])).toEqual([
      [delivery.id, 1],
      [delivery.id, 2],
    ]);
    expect((await dispatcher(['deliveries', 'export'])).stdout).toBe(readFileSync(file, 'utf8'));

    // --since means the attempt's time in export, the delivery's creation in list.
    const [, second] = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { attempted_at: string; attempt_number: number });
    const fromSecond = (await dispatcher(['deliveries', 'export', '--since', second!.attempted_at])).stdout.trim().split('\n');
    expect(fromSecond.map((line) => (JSON.parse(line) as { attempt_number: number }).attempt_number)).toEqual([2]);
    expect(json<Delivery[]>(await dispatcher(['deliveries', 'list', '--since', second!.attempted_at, '--json']))).toEqual([]);
    expect(json<Delivery[]>(await dispatcher(['deliveries', 'list', '--until', second!.attempted_at, '--json'])).map((listed) => listed.id)).toEqual([delivery.id]);
  });

  // What the UNKNOWN_EVENT_TYPE message suggests — a type, a group, or * — each command takes.
  it.each([
    ['invoice.paid', true],
    ['invoice.*', true],
    ['*', true],
    ['customer.*', false],
    ['payment.failed', false],
  ])('deliveries list and export --type %s select by type, group or all', async (type, selected) => {
    const listed = json<Delivery[]>(await dispatcher(['deliveries', 'list', '--type', type, '--json']));
    expect(listed.map((entry) => entry.id)).toEqual(selected ? [delivery.id] : []);
    const exported = await dispatcher(['deliveries', 'export', '--type', type]);
    expect(exported.exitCode).toBe(0);
    expect(exported.stdout.trim().split('\n').filter((line) => line !== '')).toHaveLength(selected ? 2 : 0);
  });

  it('webhooks update: disables it', async () => {
    const updated = json<WebhookRegistration>(await dispatcher(['webhooks', 'update', webhook.id, '--status', 'disabled', '--json']));
    expect(updated.status).toBe('disabled');
    expectOneLineError(await dispatcher(['webhooks', 'update', webhook.id]), 'INVALID_OPTION', 2);
    expectOneLineError(await dispatcher(['webhooks', 'update', webhook.id, '--url', 'http://169.254.169.254/latest']), 'INVALID_URL', 2);
    const local = await dispatcher(['webhooks', 'update', webhook.id, '--url', 'http://127.0.0.1:9/webhooks']);
    expectOneLineError(local, 'INVALID_URL', 2);
    expect(local.stderr).toContain('--allow-insecure-urls');
  });

  it('deliveries retry: exit 1 when the receiver does not answer', async () => {
    const port = await closedPort();
    const unreachable = json<WebhookRegistration>(await dispatcher(['webhooks', 'add', '--url', `http://127.0.0.1:${port}/webhooks`, '--events', 'payment.refunded', '--allow-insecure-urls', '--json']));
    await dispatcher(['emit', 'payment.refunded']);
    const [pending] = json<Delivery[]>(await dispatcher(['deliveries', 'list', '--webhook', unreachable.id, '--json']));
    const retried = await dispatcher(['deliveries', 'retry', pending!.id, '--allow-insecure-urls']);
    expect(retried.exitCode).toBe(1);
    expect(retried.stdout).toMatch(/^Attempt 1 \(manual\): no answer/);
  });

  it('deliveries erase: removes the payloads of one business, and the log says so; a missing --business is one line, exit 2', async () => {
    expect(json(await dispatcher(['deliveries', 'erase', '--business', 'biz_nobody000000000', '--json']))).toEqual({
      business_id: 'biz_nobody000000000',
      events: 0,
      attempts: 0,
      deliveriesEnded: 0,
      webhooks: 0,
    });
    const run = await dispatcher(['deliveries', 'erase', '--business', 'biz_4mVt9QeZxK2hRw7L']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^Erased the payloads of biz_4mVt9QeZxK2hRw7L: [1-9]\d* events?, \d+ response bod(y|ies); \d+ deliver(y|ies) still retrying ended\n$/);
    const shown = json<DeliveryDetail>(await dispatcher(['deliveries', 'show', delivery.id, '--json']));
    expect(shown.attempts.map((attempt) => [attempt.request_payload, attempt.response_body])).toEqual(shown.attempts.map(() => ['[payload no longer kept]', '[payload no longer kept]']));
    expectOneLineError(await dispatcher(['deliveries', 'erase']), 'INVALID_ARGUMENTS', 2);
    expectOneLineError(await dispatcher(['deliveries', 'erase', '--business', ' ']), 'INVALID_OPTION', 2);
  });

  it('webhooks rm: removes it', async () => {
    const run = await dispatcher(['webhooks', 'rm', webhook.id]);
    expect(run.exitCode).toBe(0);
    const listed = json<WebhookRegistration[]>(await dispatcher(['webhooks', 'list', '--json']));
    expect(listed.map((entry) => entry.id)).not.toContain(webhook.id);
    expectOneLineError(await dispatcher(['webhooks', 'rm', webhook.id]), 'NOT_FOUND', 2);
  });
});

describe('acct-webhook dispatcher with bad input', () => {
  const other = join(workspace.path, 'other.db');

  beforeAll(async () => {
    expect((await dispatcher(['webhooks', 'add', '--url', 'http://127.0.0.1:9/webhooks', '--allow-insecure-urls'], other)).exitCode).toBe(0);
  });

  it('refuses an unknown event type', async () => {
    expectOneLineError(await dispatcher(['emit', 'invoice.payed'], other), 'UNKNOWN_EVENT_TYPE', 2);
    expectOneLineError(await dispatcher(['webhooks', 'add', '--url', 'http://127.0.0.1:9/webhooks', '--events', 'invoices.*', '--allow-insecure-urls'], other), 'UNKNOWN_EVENT_TYPE', 2);
    expectOneLineError(await dispatcher(['deliveries', 'list', '--type', 'invoices.*'], other), 'UNKNOWN_EVENT_TYPE', 2);
    expectOneLineError(await dispatcher(['deliveries', 'export', '--type', 'invoices.*'], other), 'UNKNOWN_EVENT_TYPE', 2);
  });

  it('emit takes one type, and its error suggests no group', async () => {
    const run = await dispatcher(['emit', 'invoice.*'], other);
    expectOneLineError(run, 'UNKNOWN_EVENT_TYPE', 2);
    expect(run.stderr).not.toContain('group');
  });

  it('refuses an event that --set made invalid', async () => {
    expectOneLineError(await dispatcher(['emit', 'invoice.paid', '--set', 'data.object.amount="many"'], other), 'VALIDATION_ERROR', 2);
  });

  it('explains that amounts are integers in minor units: emit --set data.object.amount=12.5', async () => {
    const run = await dispatcher(['emit', 'invoice.paid', '--set', 'data.object.amount=12.5'], other);
    expectOneLineError(run, 'INVALID_OPTION', 2);
    expect(run.stderr).toContain('amounts are integers in minor units (cents): amount=1250 for 12.50');
  });

  it('refuses an unknown delivery id', async () => {
    expectOneLineError(await dispatcher(['deliveries', 'show', 'dlv_nope'], other), 'NOT_FOUND', 2);
    expectOneLineError(await dispatcher(['deliveries', 'retry', 'dlv_nope', '--allow-insecure-urls'], other), 'NOT_FOUND', 2);
  });

  it('refuses a --db that is not a dispatch database', async () => {
    const text = join(workspace.path, 'notes.txt');
    writeFileSync(text, 'not a database');
    expectOneLineError(await dispatcher(['webhooks', 'list'], text), 'MALFORMED_INPUT', 2);
    expect(readFileSync(text, 'utf8')).toBe('not a database');
  });

  it('refuses an export to a directory that does not exist', async () => {
    expectOneLineError(await dispatcher(['deliveries', 'export', '--out', join(workspace.path, 'missing', 'x.jsonl')], other), 'INVALID_OPTION', 2);
  });

  it('keeps header values out of errors', async () => {
    const run = await dispatcher(['webhooks', 'add', '--url', 'http://127.0.0.1:9/webhooks', '--header', 'content-type: secret-value-1', '--allow-insecure-urls'], other);
    expectOneLineError(run, 'FORBIDDEN_HEADER', 2);
    expect(run.stderr).not.toContain('secret-value-1');
  });
});

describe('acct-webhook dispatcher run', () => {
  it('waits for the attempt in flight when stopped', async () => {
    const file = join(workspace.path, 'slow.db');
    // A receiver that holds its answer until the test releases it.
    const held: (() => void)[] = [];
    const slow = createServer((req, res) => {
      req.resume();
      held.push(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    const url = `${await listenOnLoopback(slow)}/webhooks`;
    try {
      expect((await dispatcher(['webhooks', 'add', '--url', url, '--allow-insecure-urls'], file)).exitCode).toBe(0);
      expect((await dispatcher(['emit', 'uva.submitted'], file)).exitCode).toBe(0);
      const run = new CommandRun(['dispatcher', '--db', file, 'run', '--allow-insecure-urls']);
      await waitFor(() => held.length === 1, 'the attempt to arrive');
      const stopped = run.stop('SIGTERM');
      await waitFor(() => run.stderr.includes('SIGTERM: finishing the attempts in flight'), 'the stop to begin');
      expect(run.stdout).toBe('');
      for (const answer of held) answer();
      expect(await stopped).toBe(0);
      expect(run.stdout).toMatch(/200 delivered +uva\.submitted/);
      const [delivery] = json<Delivery[]>(await dispatcher(['deliveries', 'list', '--json'], file));
      expect(delivery?.status).toBe('delivered');
    } finally {
      await closeServer(slow);
    }
  });
});

describe('acct-webhook dispatcher webhooks: schemes and rotation with a grace', () => {
  it('add --scheme standard-webhooks --algorithm ed25519 prints the whpk_ public key, list shows it, never a private key; rotate-secret --grace signs with both', async () => {
    const file = join(workspace.path, 'schemes.db');
    const recorder = await startRecorder();
    try {
      const added = await dispatcher(['webhooks', 'add', '--url', recorder.url, '--scheme', 'standard-webhooks', '--algorithm', 'ed25519', '--allow-insecure-urls'], file);
      expect(added.exitCode, added.stderr).toBe(0);
      const publicKey = /public key: (whpk_\S+)/.exec(added.stdout)?.[1];
      expect(publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
      const list = await dispatcher(['webhooks', 'list'], file);
      expect(list.stdout).toMatch(new RegExp(`standard-webhooks \\(ed25519\\) +${publicKey!.replace(/[+/]/g, '\\$&')}`));
      const [registration] = json<WebhookRegistration[]>(await dispatcher(['webhooks', 'list', '--json'], file));
      expect(registration).toMatchObject({ scheme: 'standard-webhooks', algorithm: 'ed25519', public_key: publicKey });

      const rotated = json<{ public_key: string; previous_secret_expires_at: string }>(await dispatcher(['webhooks', 'rotate-secret', registration!.id, '--grace', '1h', '--json'], file));
      expect(rotated.public_key).toMatch(/^whpk_/);
      expect(Date.parse(rotated.previous_secret_expires_at) - Date.now()).toBeGreaterThan(59 * 60_000);
      expect((await dispatcher(['emit', 'invoice.paid'], file)).exitCode).toBe(0);
      const run = new CommandRun(['dispatcher', '--db', file, 'run', '--allow-insecure-urls']);
      await run.waitForOutput(/200 delivered +invoice\.paid/);
      expect(await run.stop('SIGINT')).toBe(0);
      const [request] = recorder.requests;
      const signatures = String(request!.headers['webhook-signature']).split(' ');
      expect(signatures.map((entry) => entry.split(',')[0])).toEqual(['v1a', 'v1a']);
      const common = { payload: request!.body, id: request!.headers['webhook-id'], timestamp: request!.headers['webhook-timestamp'], signature: request!.headers['webhook-signature'] };
      expect(verifyStandardWebhook({ ...common, secret: rotated.public_key })).toMatchObject({ version: 'v1a' });
      expect(verifyStandardWebhook({ ...common, secret: publicKey! })).toMatchObject({ version: 'v1a' });
      for (const output of [added.stdout, list.stdout, JSON.stringify(rotated)]) expect(output).not.toContain('whsk_');
    } finally {
      await recorder.close();
    }
  });

  it('refuses ed25519 with the platform\'s scheme, an unknown scheme and a grace that is not a duration, each in one line', async () => {
    const file = join(workspace.path, 'refusals.db');
    const url = 'http://127.0.0.1:9/webhooks';
    expectOneLineError(await dispatcher(['webhooks', 'add', '--url', url, '--allow-insecure-urls', '--algorithm', 'ed25519'], file), 'VALIDATION_ERROR', 2);
    expectOneLineError(await dispatcher(['webhooks', 'add', '--url', url, '--allow-insecure-urls', '--scheme', 'svix'], file), 'INVALID_OPTION', 2);
    const created = json<{ id: string }>(await dispatcher(['webhooks', 'add', '--url', url, '--allow-insecure-urls', '--json'], file));
    expectOneLineError(await dispatcher(['webhooks', 'rotate-secret', created.id, '--grace', 'soon'], file), 'INVALID_OPTION', 2);
    expectOneLineError(await dispatcher(['webhooks', 'rotate-secret', created.id, '--grace', '31d'], file), 'INVALID_OPTION', 2);
  });
});
