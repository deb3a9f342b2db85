import { readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_TIME_SCALE } from '../../src/cli/demo.js';
import { flakyTypes } from '../../src/cli/demo/flaky-handler.js';
import { EVENT_TYPES } from '../../src/events/catalog.js';
import { expectOneLineError, runCli, temporaryDirectory } from './helpers.js';

/** What the README promises: the demo finishes within 30 s. */
const DEMO_LIMIT_MS = 30_000;

const temp = temporaryDirectory('cli-demo');
afterAll(() => temp.remove());

describe('acct-webhook demo', () => {
  it('delivers all 18 types with retries and a duplicate, prints the log as a table and a summary, cleans up, exits 0', { timeout: DEMO_LIMIT_MS + 5_000 }, async () => {
    const started = performance.now();
    const run = await runCli(['demo'], { env: { TMPDIR: temp.path }, timeoutMs: DEMO_LIMIT_MS });
    expect(performance.now() - started).toBeLessThan(DEMO_LIMIT_MS);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);

    const [, table = ''] = run.stdout.split(/^The delivery log.*\n/m);
    const rows = table.split('\n\n')[0]!.split('\n');
    expect(rows[0]).toMatch(/^ +at +event type +event id +attempt +status +ms +result$/);
    const retried = flakyTypes().size;
    // One row per attempt: 18 first attempts, a retry for each failed one, and the manual duplicate.
    expect(rows.slice(1)).toHaveLength(EVENT_TYPES.length + retried + 1);
    for (const type of EVENT_TYPES) expect(table).toContain(` ${type} `);
    expect(rows.filter((row) => / 500 .* failed HANDLER_FAILED/.test(row))).toHaveLength(retried);
    expect(rows.filter((row) => /manual +200 .* duplicate/.test(row))).toHaveLength(1);
    expect(run.stdout).toContain(`Summary: ${EVENT_TYPES.length} of ${EVENT_TYPES.length} events delivered, ${retried} retried, 0 failed, 1 duplicate ignored`);

    expect(readdirSync(temp.path)).toEqual([]);
  });

  it('reports the same in JSON with --json, and runs faster with --time-scale', { timeout: DEMO_LIMIT_MS + 5_000 }, async () => {
    const run = await runCli(['demo', '--json', '--time-scale', String(MAX_TIME_SCALE)], { env: { TMPDIR: temp.path }, timeoutMs: DEMO_LIMIT_MS });
    expect(run.exitCode).toBe(0);
    const report = JSON.parse(run.stdout) as { summary: Record<string, number>; attempts: unknown[] };
    expect(report.summary).toEqual({
      events: EVENT_TYPES.length,
      delivered: EVENT_TYPES.length,
      retried: flakyTypes().size,
      failed: 0,
      duplicatesIgnored: 1,
      handled: EVENT_TYPES.length,
      attempts: EVENT_TYPES.length + flakyTypes().size + 1,
    });
    expect(readdirSync(temp.path)).toEqual([]);
  });

  it('refuses a --time-scale it cannot keep', async () => {
    expectOneLineError(await runCli(['demo', '--time-scale', '0']), 'INVALID_OPTION', 2);
    expectOneLineError(await runCli(['demo', '--time-scale', String(MAX_TIME_SCALE + 1)]), 'INVALID_OPTION', 2);
  });
});
