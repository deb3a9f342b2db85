import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TIME_SCALE } from '../../src/cli/demo.js';
import { flakyTypes } from '../../src/cli/demo/flaky-handler.js';
import { EVENT_TYPES } from '../../src/events/catalog.js';
import { expectOneLineError, runCommand, temporaryDirectory, type CliResult } from './helpers.js';

/** The fastest schedule the demo keeps: its one-minute retry wait takes half a second. */
const FAST = ['--time-scale', String(MAX_TIME_SCALE)];
/** One row per attempt: 18 first attempts, a retry for each failed one, and the manual duplicate. */
const ATTEMPTS = EVENT_TYPES.length + flakyTypes().size + 1;

const temp = temporaryDirectory('cli-demo');
const kept = join(temp.path, 'kept');
/** One demo run, its databases kept in `kept`, read by the tests below. (Without --keep it leaves nothing: demo.integration.test.ts.) */
let run: CliResult;
beforeAll(async () => {
  run = await runCommand(['demo', '--keep', kept, ...FAST]);
});
afterAll(() => temp.remove());

/** The delivery log's rows, as printed. */
function tableRows(): string[] {
  const [, table = ''] = run.stdout.split(/^The delivery log.*\n/m);
  return table.split('\n\n')[0]!.split('\n');
}

/** The event ids of the receiver's lines, in the order printed. */
function receiverEventIds(): string[] {
  const [, afterIntro = ''] = run.stdout.split(/^What the receiver saw:\n/m);
  const [receiverPart = ''] = afterIntro.split(/^The delivery log.*\n/m);
  return [...receiverPart.matchAll(/^\d\d:\d\d:\d\d +\d{3} \S+ +\S+ +(evt_\S+)$/gm)].map((match) => match[1]!);
}

/** `+1:02` or `+1:00:05` → seconds. */
function offsetSeconds(row: string): number {
  const [, h = '0', m = '0', s = '0'] = /^ *\+(?:(\d+):)?(\d+):(\d+)/.exec(row) ?? [];
  return Number(h) * 3600 + Number(m) * 60 + Number(s);
}

describe('acct-webhook demo', () => {
  it('delivers all 18 types with retries and a duplicate, prints the log as a table and a summary, exits 0', () => {
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    const [header, ...rows] = tableRows();
    expect(header).toMatch(/^ +at +event type +event id +attempt +status +ms +result$/);
    expect(rows).toHaveLength(ATTEMPTS);
    for (const type of EVENT_TYPES) expect(rows.join('\n')).toContain(` ${type} `);
    const retried = flakyTypes().size;
    expect(rows.filter((row) => / 500 .* failed HANDLER_FAILED/.test(row))).toHaveLength(retried);
    expect(rows.filter((row) => /manual +200 .* duplicate/.test(row))).toHaveLength(1);
    expect(run.stdout).toContain(`Summary: ${EVENT_TYPES.length} of ${EVENT_TYPES.length} events delivered, ${retried} retried, 0 failed, 1 duplicate ignored`);
  });

  it('lists the events in one order in the receiver\'s view and in the delivery log: the order the attempts were made', () => {
    const rows = tableRows().slice(1);
    const logEventIds = rows.map((row) => /(evt_\S+)/.exec(row)?.[1] ?? `no event id in: ${row}`);
    expect(receiverEventIds()).toHaveLength(ATTEMPTS);
    expect(logEventIds).toEqual(receiverEventIds());
    // The "at" column runs forward: the log is shown in the order the attempts were made.
    const offsets = rows.map(offsetSeconds);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
  });

  it('--keep <dir> keeps both databases there and says where', () => {
    expect(readdirSync(kept).filter((file) => file.endsWith('.db')).sort()).toEqual(['dispatch.db', 'events.db']);
    expect(run.stdout).toContain(`Kept in ${kept}:`);
    expect(run.stdout).toContain(`acct-webhook replay ${join(kept, 'dispatch.db')} --dry-run`);
  });

  it('replay reads the kept log: every event once, as the demo delivered it', async () => {
    const replay = await runCommand(['replay', join(kept, 'dispatch.db'), '--dry-run']);
    expect(replay.exitCode).toBe(0);
    const planned = [...replay.stdout.matchAll(/^evt_\S+ ([a-z]+\.[a-z]+) {2}delivered {2}\(delivery dlv_\S+\)$/gm)].map((match) => match[1]);
    expect(planned).toEqual([...EVENT_TYPES]);
    expect(replay.stdout).toContain(`Dry run: ${EVENT_TYPES.length} events would be replayed; nothing was sent.`);
    expect(replay.stdout).toContain(`Read ${ATTEMPTS} lines;`);
  });

  it('refuses a --keep directory that is not empty: an earlier log is never mixed in', async () => {
    const again = await runCommand(['demo', '--keep', kept, ...FAST]);
    expectOneLineError(again, 'INVALID_OPTION', 2);
    expect(again.stderr).toContain('--keep');
  });

  it('reports the same in JSON with --json; --keep alone keeps the temporary directory and names it', async () => {
    const json = await runCommand(['demo', '--json', '--keep', ...FAST]);
    expect(json.exitCode).toBe(0);
    const report = JSON.parse(json.stdout) as { summary: Record<string, number>; attempts: unknown[]; kept: Record<string, string> };
    try {
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
      expect(report.kept.dispatchDatabase).toBe(join(report.kept.directory!, 'dispatch.db'));
      expect(existsSync(report.kept.dispatchDatabase!)).toBe(true);
      expect(existsSync(report.kept.eventsDatabase!)).toBe(true);
    } finally {
      rmSync(report.kept.directory!, { recursive: true, force: true });
    }
  });

  it('refuses a --time-scale it cannot keep', async () => {
    expectOneLineError(await runCommand(['demo', '--time-scale', '0']), 'INVALID_OPTION', 2);
    expectOneLineError(await runCommand(['demo', '--time-scale', String(MAX_TIME_SCALE + 1)]), 'INVALID_OPTION', 2);
  });
});
