import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, sqliteStore, Webhooks, type Receiver } from '../../src/index.js';
import { createTestEvent, signedRequest } from '../../src/testing/index.js';
import { expectOneLineError, runCommand, temporaryDirectory, testSecret } from './helpers.js';

const workspace = temporaryDirectory('cli-inbox');
const secret = testSecret('inbox');

/** A receiver in inbox mode whose handler fails for `payment.*`: those end dead after one run. */
function receiverOn(store: ReturnType<typeof sqliteStore>, healthy: () => boolean): Receiver {
  return createReceiver({
    secret,
    store,
    logger: false,
    inbox: { pollIntervalMs: 5, retryDelaysMs: [] },
    handlers: new Webhooks().on('payment.*', () => {
      if (!healthy()) throw new Error('the ledger is down');
    }),
  });
}

async function deliver(receiver: Receiver, event: object): Promise<void> {
  const { body, headers } = signedRequest(event, secret);
  expect((await receiver.receive({ rawBody: body, headers, method: 'POST' })).status).toBe(200);
}

describe('acct-webhook inbox (SQLite)', () => {
  const db = join(workspace.path, 'webhook-events.db');
  const paid = createTestEvent('invoice.paid');
  const failed = createTestEvent('payment.received');
  let healthy = false;
  let receiver: Receiver;
  let store: ReturnType<typeof sqliteStore>;

  beforeAll(async () => {
    store = sqliteStore(db);
    receiver = receiverOn(store, () => healthy);
    await deliver(receiver, paid);
    await deliver(receiver, failed);
    await receiver.inbox.drain();
  });
  afterAll(async () => {
    await receiver.close();
    await store.close();
  });

  it('lists events newest first with the counts by status', async () => {
    const result = await runCommand(['inbox', 'list', '--db', db]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^0 pending, 0 processing, 1 done, 1 dead\n/);
    expect(result.stdout).toContain(paid.id);
    // The handler's own error, not only the receiver's code.
    expect(result.stdout).toMatch(new RegExp(`${failed.id}\\s+payment\\.received\\s+dead\\s+1 .*HANDLER_FAILED: Error: the ledger is down\n`));
    const json = JSON.parse((await runCommand(['inbox', 'list', '--db', db, '--status', 'dead', '--json'])).stdout) as {
      stats: object;
      events: { event_id: string; raw_body: string; last_error: unknown }[];
    };
    expect(json.stats).toMatchObject({ done: 1, dead: 1 });
    expect(json.events.map((event) => event.event_id)).toEqual([failed.id]);
    expect(json.events[0]).toMatchObject({ last_error: { code: 'HANDLER_FAILED', message: 'Error: the ledger is down' } });
    expect(JSON.parse(json.events[0]!.raw_body)).toMatchObject({ id: failed.id });
  });

  it('shows one event: state, kept headers (never the signature) and the payload', async () => {
    const result = await runCommand(['inbox', 'show', failed.id, '--db', db]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain(`${failed.id}: payment.received, dead`);
    expect(result.stdout).toContain('  last error HANDLER_FAILED: Error: the ledger is down\n');
    expect(result.stdout).toMatch(/x-svc-timestamp: \d+/);
    expect(result.stdout).not.toContain('x-svc-signature');
    expect(result.stdout).toContain(`"id": "${failed.id}"`);
  });

  it('retries a dead event: the receiver serving the store runs it', async () => {
    healthy = true;
    const result = await runCommand(['inbox', 'retry', failed.id, '--db', db]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${failed.id} is pending again; the receiver's worker runs it next.\n`);
    await receiver.inbox.drain();
    expect(await receiver.inbox.get(failed.id)).toMatchObject({ status: 'done', attempts: 1 });
    expectOneLineError(await runCommand(['inbox', 'retry', failed.id, '--db', db]), 'NOT_RETRYABLE', 1);
    expectOneLineError(await runCommand(['inbox', 'retry', 'evt_nope', '--db', db]), 'NOT_FOUND', 2);
  });

  it('purges finished events, and refuses to purge pending ones', async () => {
    expectOneLineError(await runCommand(['inbox', 'purge', '--status', 'pending', '--db', db]), 'INVALID_OPTION', 2);
    expect((await runCommand(['inbox', 'purge', '--status', 'done', '--before', '2020-01-01', '--db', db])).stdout).toBe('0 done events purged.\n');
    expect((await runCommand(['inbox', 'purge', '--status', 'done', '--db', db])).stdout).toBe('2 done events purged.\n');
    expect(await receiver.inbox.list()).toEqual([]);
  });

  it('refuses a file that does not exist or is not a receiver store, creating nothing', async () => {
    expectOneLineError(await runCommand(['inbox', 'list', '--db', join(workspace.path, 'typo.db')]), 'UNREADABLE_FILE', 2);
    const other = join(workspace.path, 'notes.txt');
    writeFileSync(other, 'not a database');
    expectOneLineError(await runCommand(['inbox', 'list', '--db', other]), 'MALFORMED_INPUT', 2);
    expectOneLineError(await runCommand(['inbox', 'show', 'evt_nope', '--db', db]), 'NOT_FOUND', 2);
    expectOneLineError(await runCommand(['inbox', 'list', '--db', db, '--type', 'invoice.payed']), 'UNKNOWN_EVENT_TYPE', 2);
  });
});
