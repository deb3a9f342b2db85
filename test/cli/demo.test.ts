import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_TIME_SCALE } from '../../src/cli/demo.js';
import { flakyTypes } from '../../src/cli/demo/flaky-handler.js';
import { EVENT_TYPES } from '../../src/events/catalog.js';
import { expectOneLineError, runCommand, temporaryDirectory, type CliResult } from './helpers.js';

/** The fastest schedule the demo keeps: its one-minute retry wait takes half a second. */
const FAST = ['--time-scale', String(MAX_TIME_SCALE)];
/** One row per attempt: 18 first attempts, a retry for each failed one, and the manual duplicate. */
const ATTEMPTS = EVENT_TYPES.length + flakyTypes().size + 1;

const temp = temporaryDirectory('cli-demo');
afterAll(() => temp.remove());

/** The event ids of the receiver's lines and of the delivery log's rows, each in the order printed. */
function eventOrders(run: CliResult): { receiver: string[]; log: string[] } {
  const [, afterIntro = ''] = run.stdout.split(/^What the receiver saw:\n/m);
  const [receiverPart = '', tablePart = ''] = afterIntro.split(/^The delivery log.*\n/m);
  const receiver = [...receiverPart.matchAll(/^\d\d:\d\d:\d\d +\d{3} \S+ +\S+ +(evt_\S+)$/gm)].map((match) => match[1]!);
  const rows = tablePart.split('\n\n')[0]!.split('\n').slice(1);
  const log = rows.map((row) => /(evt_\S+)/.exec(row)?.[1] ?? `no event id in: ${row}`);
  return { receiver, log };
}

describe('acct-webhook demo', () => {
  it('delivers all 18 types with retries and a duplicate, prints the log as a table and a summary, exits 0', async () => {
    const run = await runCommand(['demo', ...FAST]);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    const [, table = ''] = run.stdout.split(/^The delivery log.*\n/m);
    const rows = table.split('\n\n')[0]!.split('\n');
    expect(rows[0]).toMatch(/^ +at +event type +event id +attempt +status +ms +result$/);
    expect(rows.slice(1)).toHaveLength(ATTEMPTS);
    for (const type of EVENT_TYPES) expect(table).toContain(` ${type} `);
    const retried = flakyTypes().size;
    expect(rows.filter((row) => / 500 .* failed HANDLER_FAILED/.test(row))).toHaveLength(retried);
    expect(rows.filter((row) => /manual +200 .* duplicate/.test(row))).toHaveLength(1);
    expect(run.stdout).toContain(`Summary: ${EVENT_TYPES.length} of ${EVENT_TYPES.length} events delivered, ${retried} retried, 0 failed, 1 duplicate ignored`);
    expect(run.stdout).not.toContain('Kept in');
  });

  it('lists the events in one order in the receiver\'s view and in the delivery log: the order the attempts were made', async () => {
    const run = await runCommand(['demo', ...FAST]);
    expect(run.exitCode).toBe(0);
    const { receiver, log } = eventOrders(run);
    expect(receiver).toHaveLength(ATTEMPTS);
    expect(log).toEqual(receiver);
    // The "at" column runs forward: the log is not re-sorted into another order.
    const offsets = run.stdout
      .split(/^The delivery log.*\n/m)[1]!
      .split('\n\n')[0]!
      .split('\n')
      .slice(1)
      .map((row) => /^ *\+(?:(\d+):)?(\d+):(\d+)/.exec(row)!.slice(1).map((part) => Number(part ?? 0)))
      .map(([h, m, s]) => h! * 3600 + m! * 60 + s!);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
  });

  it('reports the same in JSON with --json', async () => {
    const run = await runCommand(['demo', '--json', ...FAST]);
    expect(run.exitCode).toBe(0);
    const report = JSON.parse(run.stdout) as { summary: Record<string, number>; attempts: unknown[]; kept?: unknown };
    expect(report.summary).toEqual({
      events: EVENT_TYPES.length,
      delivered: EVENT_TYPES.length,
      retried: flakyTypes().size,
      failed: 0,
      duplicatesIgnored: 1,
      handled: EVENT_TYPES.length,
      attempts: ATTEMPTS,
    });
    expect(report.attempts).toHaveLength(ATTEMPTS);
    expect(report.kept).toBeUndefined();
  });

  it('--keep <dir> keeps both databases there and says where; replay reads the log from it', async () => {
    const directory = join(temp.path, 'kept');
    const run = await runCommand(['demo', '--keep', directory, ...FAST]);
    expect(run.exitCode).toBe(0);
    const dispatchDatabase = join(directory, 'dispatch.db');
    expect(readdirSync(directory).filter((file) => file.endsWith('.db')).sort()).toEqual(['dispatch.db', 'events.db']);
    expect(run.stdout).toContain(`Kept in ${directory}:`);
    expect(run.stdout).toContain(`acct-webhook replay ${dispatchDatabase} --dry-run`);

    const replay = await runCommand(['replay', dispatchDatabase, '--dry-run']);
    expect(replay.exitCode).toBe(0);
    expect(replay.stdout.match(/^evt_\S+ [a-z]+\.[a-z]+ {2}delivered {2}\(delivery dlv_\S+\)$/gm)).toHaveLength(EVENT_TYPES.length);
    expect(replay.stdout).toContain(`Dry run: ${EVENT_TYPES.length} events would be replayed; nothing was sent.`);
    expect(replay.stdout).toContain(`Read ${ATTEMPTS} lines;`);
  });

  it('--keep without a directory keeps the temporary one and names it, in JSON too', async () => {
    const run = await runCommand(['demo', '--keep', '--json', ...FAST]);
    expect(run.exitCode).toBe(0);
    const { kept } = JSON.parse(run.stdout) as { kept: { directory: string; dispatchDatabase: string; eventsDatabase: string } };
    try {
      expect(kept.dispatchDatabase).toBe(join(kept.directory, 'dispatch.db'));
      expect(existsSync(kept.dispatchDatabase)).toBe(true);
      expect(existsSync(kept.eventsDatabase)).toBe(true);
    } finally {
      rmSync(kept.directory, { recursive: true, force: true });
    }
  });

  it('refuses a --keep directory that is not empty: an earlier log is never mixed in', async () => {
    const directory = join(temp.path, 'kept');
    expect(existsSync(join(directory, 'dispatch.db'))).toBe(true);
    const run = await runCommand(['demo', '--keep', directory, ...FAST]);
    expectOneLineError(run, 'INVALID_OPTION', 2);
    expect(run.stderr).toContain('--keep');
  });

  it('refuses a --time-scale it cannot keep', async () => {
    expectOneLineError(await runCommand(['demo', '--time-scale', '0']), 'INVALID_OPTION', 2);
    expectOneLineError(await runCommand(['demo', '--time-scale', String(MAX_TIME_SCALE + 1)]), 'INVALID_OPTION', 2);
  });
});

