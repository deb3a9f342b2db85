import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/dispatcher.js';
import type { ReplayResult } from '../../src/dispatcher/replay.js';
import { createTestEvent } from '../../src/testing/index.js';
import { expectOneLineError, runCommand, temporaryDirectory } from './helpers.js';

/*
 * `acct-webhook dispatcher webhooks replay <id> --from … --to … --types …` on a SQLite file a
 * Dispatcher filled: what it queues, that a second run queues nothing twice, and its refusals.
 */

const workspace = temporaryDirectory('cli-replay');
afterAll(() => workspace.remove());

async function filledDatabase(): Promise<{ db: string; webhookId: string; start: number }> {
  const db = join(workspace.path, `dispatch-${Math.random().toString(36).slice(2)}.db`);
  const dispatcher = new Dispatcher({ database: db, logger: false, allowInsecureUrls: true });
  const start = Date.now() - 60_000;
  for (const type of ['invoice.paid', 'invoice.sent', 'payment.received', 'customer.created'] as const) await dispatcher.emit(createTestEvent(type, { business_id: 'biz_cli' }));
  // Registered after the events: it has no delivery of them yet (a new receiver, a late subscription).
  const { id } = await dispatcher.webhooks.create({ business_id: 'biz_cli', url: 'http://127.0.0.1:9/webhooks', events: ['invoice.*', 'payment.*'] });
  await dispatcher.close();
  return { db, webhookId: id, start };
}

describe('acct-webhook dispatcher webhooks replay', () => {
  it('queues the range once more, and a second run queues nothing twice; --types narrows it', async () => {
    const { db, webhookId, start } = await filledDatabase();
    const from = new Date(start).toISOString();
    const first = await runCommand(['dispatcher', '--db', db, 'webhooks', 'replay', webhookId, '--from', from, '--json']);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout) as ReplayResult).toEqual({ matched: 3, queued: 3, skipped: 0, payload_removed: 0 });
    const again = await runCommand(['dispatcher', '--db', db, 'webhooks', 'replay', webhookId, '--from', from, '--types', 'invoice.*']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toBe(`Replay to ${webhookId}: 2 events in the range, 0 queued; 2 skipped (a delivery to it is still pending).\n`);
  });

  it('refuses a missing --from, a bad time and an unknown webhook, each in one line', async () => {
    const { db, webhookId } = await filledDatabase();
    expectOneLineError(await runCommand(['dispatcher', '--db', db, 'webhooks', 'replay', webhookId]), 'INVALID_ARGUMENTS', 2);
    expectOneLineError(await runCommand(['dispatcher', '--db', db, 'webhooks', 'replay', webhookId, '--from', 'friday']), 'INVALID_OPTION', 2);
    const unknown = await runCommand(['dispatcher', '--db', db, 'webhooks', 'replay', 'wh_missing', '--from', new Date(Date.now() - 3_600_000).toISOString()]);
    expect(unknown.stderr).toMatch(/^acct-webhook dispatcher webhooks replay: .+ \[NOT_FOUND\]\n$/);
    expect(unknown.exitCode).not.toBe(0);
  });
});
