import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/dispatcher.js';
import type { ExportedAttempt } from '../../src/dispatcher/records.js';
import type { EventType } from '../../src/events/catalog.js';
import { verifySignature } from '../../src/signing/signature.js';
import { createTestEvent } from '../../src/testing/index.js';
import { FakeClock } from '../helpers/clock.js';
import { expectOneLineError, runCommand, temporaryDirectory, testSecret, type CliResult } from './helpers.js';
import { startReceiver, type TestReceiver } from './receivers.js';
import { closedPort, startRecorder, type Recorder } from './servers.js';

const workspace = temporaryDirectory('cli-replay');
const logFile = join(workspace.path, 'deliveries.jsonl');
const dbFile = join(workspace.path, 'webhook-dispatch.db');
const secret = testSecret('replay');
/** The log's attempts, as exported: what the tests compare against. */
let log: ExportedAttempt[];

/** The event id of the (only) event of `type` in the log. */
function eventOf(type: EventType): string {
  const attempt = log.find((line) => line.event_type === type);
  if (!attempt) throw new Error(`no ${type} in the log`);
  return attempt.event_id;
}

/**
 * A delivery log with every state in it, made by a real dispatcher on a fake clock against a
 * receiver that fails some events:
 *   09:00  invoice.paid      200                    → delivered
 *   09:00  invoice.sent      500, 09:01 200         → delivered (two attempt lines)
 *   09:00  payment.failed    500, 09:01 500         → finally_failed (a two-attempt schedule)
 *   11:00  customer.created  200                    → delivered
 *   11:00  payment.received  500                    → retrying
 */
beforeAll(async () => {
  const seen = new Set<string>();
  const original = await startRecorder((request) => {
    const event = JSON.parse(request.body.toString('utf8')) as { id: string; type: string };
    const first = !seen.has(event.id);
    seen.add(event.id);
    const fails = event.type.startsWith('payment.') || (event.type === 'invoice.sent' && first);
    return fails ? { status: 500, body: { error: { code: 'HANDLER_FAILED' } } } : { status: 200, body: { received: true } };
  });
  const clock = new FakeClock(Date.UTC(2026, 10, 22, 9, 0, 0));
  const dispatcher = new Dispatcher({ database: dbFile, clock: clock.now, allowInsecureUrls: true, logger: false, schedule: [0, 60] });
  try {
    await dispatcher.webhooks.create({ url: original.url, events: ['*'] });
    for (const type of ['invoice.paid', 'invoice.sent', 'payment.failed'] as const) await dispatcher.emit(createTestEvent(type));
    await dispatcher.runDue();
    clock.advance(60_000);
    await dispatcher.runDue();
    clock.set(Date.UTC(2026, 10, 22, 11, 0, 0));
    for (const type of ['customer.created', 'payment.received'] as const) await dispatcher.emit(createTestEvent(type));
    await dispatcher.runDue();
    const out = createWriteStream(logFile);
    await dispatcher.deliveries.export(out);
    out.end();
    await once(out, 'finish');
  } finally {
    await dispatcher.close();
    await original.close();
  }
  log = readFileSync(logFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as ExportedAttempt);
});
afterAll(() => workspace.remove());

let receiver: TestReceiver;
const recorders: Recorder[] = [];
const receivers: TestReceiver[] = [];
beforeAll(async () => {
  receiver = await startReceiver(secret);
});
afterEach(() => {
  // A fresh view per test: the receiver dedupes, and each test looks at what it sent itself.
  receiver.handled.length = 0;
  receiver.headers.length = 0;
  receiver.outcomes.length = 0;
});
afterAll(async () => {
  await receiver.close();
  for (const recorder of recorders) await recorder.close();
  for (const fresh of receivers) await fresh.close();
});

async function freshReceiver(): Promise<TestReceiver> {
  const fresh = await startReceiver(secret);
  receivers.push(fresh);
  return fresh;
}

function replay(args: string[], to: string = receiver.url): Promise<CliResult> {
  return runCommand(['replay', logFile, '--to', to, '--secret', secret, '--rate', '1000', ...args]);
}

describe('the log the tests replay', () => {
  it('has every delivery state, and two attempt lines for a retried event', () => {
    expect(log.map((line) => [line.event_type, line.response_status, line.delivery_status])).toEqual([
      ['invoice.paid', 200, 'delivered'],
      ['invoice.sent', 500, 'delivered'],
      ['payment.failed', 500, 'finally_failed'],
      ['invoice.sent', 200, 'delivered'],
      ['payment.failed', 500, 'finally_failed'],
      ['customer.created', 200, 'delivered'],
      ['payment.received', 500, 'retrying'],
    ]);
  });
});

describe('acct-webhook replay', () => {
  it('re-delivers every event of the log once, in the original order, and the receiver accepts them', async () => {
    const target = await freshReceiver();
    const run = await replay([], target.url);
    expect(run.exitCode).toBe(0);
    expect(target.handled.map((event) => event.type)).toEqual(['invoice.paid', 'invoice.sent', 'payment.failed', 'customer.created', 'payment.received']);
    expect(target.outcomes.map((outcome) => outcome.outcome)).toEqual(Array(5).fill('handled'));
    expect(run.stdout).toContain(`${eventOf('payment.failed')} payment.failed  finally_failed → 200 delivered`);
    expect(run.stdout).toMatch(/Replayed 5 events to .*: 5 delivered, 0 failed\.\nRead 7 lines; 5 deliveries matched the filter\.\n$/);
  });

  it('sends the exact original bytes with a fresh signature and the replay header naming the delivery', async () => {
    const recorder = await startRecorder();
    recorders.push(recorder);
    const run = await replay(['--status', 'finally_failed'], recorder.url);
    expect(run.exitCode).toBe(0);
    const original = log.find((line) => line.delivery_status === 'finally_failed')!;
    expect(recorder.requests).toHaveLength(1);
    const [request] = recorder.requests;
    expect(request!.body.toString('utf8')).toBe(original.request_payload);
    expect(request!.headers['x-acct-webhook-replay-of']).toBe(original.delivery_id);
    const timestamp = Number(request!.headers['x-svc-timestamp']);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(60);
    expect(() => verifySignature({ payload: request!.body, signature: String(request!.headers['x-svc-signature']), timestamp, secret })).not.toThrow();
  });

  it.each([
    [['--status', 'finally_failed'], ['payment.failed']],
    [['--status', 'retrying'], ['payment.received']],
    [['--status', 'delivered'], ['invoice.paid', 'invoice.sent', 'customer.created']],
    [['--type', 'invoice.*'], ['invoice.paid', 'invoice.sent']],
    [['--type', '*'], ['invoice.paid', 'invoice.sent', 'payment.failed', 'customer.created', 'payment.received']],
    [['--type', 'payment.failed'], ['payment.failed']],
    [['--since', '2026-11-22T10:00:00Z'], ['customer.created', 'payment.received']],
    [['--until', '2026-11-22T10:00:00Z'], ['invoice.paid', 'invoice.sent', 'payment.failed']],
    [['--type', 'payment.*', '--since', '2026-11-22T10:00:00Z'], ['payment.received']],
    [['--since', '2026-11-22T09:00:30Z', '--until', '2026-11-22T10:00:00Z'], ['invoice.sent', 'payment.failed']],
  ] as const)('with %j sends exactly the selected events: %j', async (filter, types) => {
    const target = await freshReceiver();
    const run = await replay([...filter], target.url);
    expect(run.exitCode).toBe(0);
    expect(target.handled.map((event) => event.id)).toEqual(types.map((type) => eventOf(type)));
    expect(target.headers.map((headers) => headers['x-acct-webhook-replay-of'])).toEqual(
      types.map((type) => log.find((line) => line.event_type === type)!.delivery_id),
    );
  });

  it('sends nothing with --dry-run and lists what it would send', async () => {
    const run = await replay(['--dry-run', '--type', 'invoice.*']);
    expect(run.exitCode).toBe(0);
    expect(receiver.headers).toHaveLength(0);
    expect(run.stdout).toContain(`${eventOf('invoice.paid')} invoice.paid  delivered`);
    expect(run.stdout).toContain(`${eventOf('invoice.sent')} invoice.sent  delivered`);
    expect(run.stdout).toMatch(/Dry run: 2 events would be replayed to .*; nothing was sent\./);
  });

  it('--dry-run needs neither --to nor a secret', async () => {
    const run = await runCommand(['replay', logFile, '--dry-run', '--json']);
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ dryRun: true, summary: { lines: 7, deliveries: 5, events: 5 } });
  });

  it('reads a dispatcher\'s SQLite file the same way', async () => {
    const target = await freshReceiver();
    const run = await runCommand(['replay', dbFile, '--to', target.url, '--secret', secret, '--status', 'retrying']);
    expect(run.exitCode).toBe(0);
    expect(target.handled.map((event) => event.id)).toEqual([eventOf('payment.received')]);
  });

  it('reports malformed lines with their numbers, replays the rest, and exits 2', async () => {
    const lines = readFileSync(logFile, 'utf8').trim().split('\n');
    const file = join(workspace.path, 'with-bad-lines.jsonl');
    writeFileSync(file, [lines[0], '{"not": "an attempt"', lines[5], '', '[1,2]', JSON.stringify({ ...log[6], request_payload: 7 })].join('\n') + '\n');
    const target = await freshReceiver();
    const run = await runCommand(['replay', file, '--to', target.url, '--secret', secret]);
    expect(run.exitCode).toBe(2);
    expect(target.handled.map((event) => event.type)).toEqual(['invoice.paid', 'customer.created']);
    const errors = run.stderr.trim().split('\n');
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatch(/line 2: .*\[MALFORMED_INPUT\]$/);
    expect(errors[1]).toMatch(/line 5: .*\[MALFORMED_INPUT\]$/);
    expect(errors[2]).toMatch(/line 6: request_payload .*\[MALFORMED_INPUT\]$/);
    expect(run.stdout).toContain('3 malformed lines skipped');
  });

  it('skips an event whose payload is no longer kept, saying so, replays the rest, and exits 2', async () => {
    const lines = readFileSync(logFile, 'utf8').trim().split('\n');
    const file = join(workspace.path, 'with-removed-payload.jsonl');
    const removed = { ...log[5]!, request_payload: '[payload no longer kept]', response_body: '[payload no longer kept]' };
    writeFileSync(file, [lines[0], JSON.stringify(removed)].join('\n') + '\n');
    const target = await freshReceiver();
    const run = await runCommand(['replay', file, '--to', target.url, '--secret', secret]);
    expect(run.exitCode).toBe(2);
    expect(target.handled.map((event) => event.type)).toEqual(['invoice.paid']);
    expect(run.stderr).toBe(`acct-webhook replay: ${removed.event_id}: payload no longer kept (removed by the dispatcher's retention or an erase); skipped [PAYLOAD_NOT_KEPT]\n`);
  });

  it('exits 1 when the receiver refuses, and shows the status and code per event', async () => {
    const run = await runCommand(['replay', logFile, '--to', receiver.url, '--secret', testSecret('wrong'), '--type', 'invoice.paid']);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain('delivered → 401 failed');
    expect(run.stdout).toContain('SIGNATURE_MISMATCH');
    expect(run.stdout).toContain('0 delivered, 1 failed');
  });

  it('exits 1 when nothing answers', async () => {
    const port = await closedPort();
    const run = await replay(['--type', 'customer.created'], `http://127.0.0.1:${port}/webhooks`);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain(`${eventOf('customer.created')} customer.created  delivered → no answer`);
  });

  it('keeps to --rate', async () => {
    const started = performance.now();
    const run = await runCommand(['replay', logFile, '--to', receiver.url, '--secret', secret, '--rate', '10']);
    expect(run.exitCode).toBe(0);
    // Five starts at most ten a second: the last no earlier than 4 × 100 ms after the first.
    // (The spacing itself is tested on a fake clock in timing.test.ts.)
    expect(performance.now() - started).toBeGreaterThanOrEqual(400);
  });

  it('sends several at once with --concurrency', async () => {
    const target = await freshReceiver();
    const run = await replay(['--concurrency', '4'], target.url);
    expect(run.exitCode).toBe(0);
    expect(new Set(target.handled.map((event) => event.id)).size).toBe(5);
  });

  it('prints results and summary as JSON with --json', async () => {
    const target = await freshReceiver();
    const run = await replay(['--json', '--status', 'retrying'], target.url);
    expect(run.exitCode).toBe(0);
    const report = JSON.parse(run.stdout) as { results: { eventId: string; originalStatus: string; outcome: string; status: number }[] };
    expect(report.results).toEqual([expect.objectContaining({ eventId: eventOf('payment.received'), originalStatus: 'retrying', outcome: 'delivered', status: 200 })]);
  });
});

describe('acct-webhook replay with bad input', () => {
  it('needs a secret to send', async () => {
    expectOneLineError(await runCommand(['replay', logFile, '--to', receiver.url]), 'MISSING_SECRET', 2);
  });

  it('needs --to to send', async () => {
    expectOneLineError(await runCommand(['replay', logFile, '--secret', secret]), 'INVALID_OPTION', 2);
  });

  it('refuses an unreadable file', async () => {
    expectOneLineError(await replayFile(join(workspace.path, 'missing.jsonl')), 'UNREADABLE_FILE', 2);
    expectOneLineError(await replayFile(workspace.path), 'UNREADABLE_FILE', 2);
  });

  it('refuses a SQLite file that is not a dispatch database', async () => {
    const other = join(workspace.path, 'other.db');
    new Database(other).exec('CREATE TABLE notes (text TEXT)');
    expectOneLineError(await replayFile(other), 'MALFORMED_INPUT', 2);
  });

  it('refuses an unknown --type and a bad --status or --since', async () => {
    expectOneLineError(await replay(['--type', 'invoice.payed']), 'UNKNOWN_EVENT_TYPE', 2);
    expectOneLineError(await replay(['--status', 'failed']), 'INVALID_OPTION', 2);
    expectOneLineError(await replay(['--since', 'yesterday']), 'INVALID_OPTION', 2);
    expect(receiver.headers).toHaveLength(0);
  });
});

function replayFile(file: string): Promise<CliResult> {
  return runCommand(['replay', file, '--to', receiver.url, '--secret', secret]);
}

describe('acct-webhook replay on a terminal', () => {
  it('shows a progress bar on a terminal\'s stderr, and none in a pipe', async () => {
    const args = ['replay', logFile, '--to', receiver.url, '--secret', secret, '--rate', '1000'];
    const terminal = await runCommand(args, { terminalColumns: 120 });
    expect(terminal.exitCode).toBe(0);
    expect(terminal.stderr).toMatch(/replaying \[█+░*\] \d\/5/);
    const piped = await runCommand(args);
    expect(piped.exitCode).toBe(0);
    expect(piped.stdout + piped.stderr).not.toContain('replaying [');
  });
});
