import { readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/events/catalog.js';
import { temporaryDirectory } from './helpers.js';
import { runProcess } from './process.js';

/** What the docs promise: the demo finishes within 30 s. */
const DEMO_LIMIT_MS = 30_000;

const temp = temporaryDirectory('cli-demo-process');
afterAll(() => temp.remove());

describe('acct-webhook demo as a user runs it', () => {
  it('finishes within 30 s at the default time scale, exits 0, and leaves nothing behind', { timeout: DEMO_LIMIT_MS + 5_000 }, async () => {
    const started = performance.now();
    const run = await runProcess(['demo'], { env: { TMPDIR: temp.path }, timeoutMs: DEMO_LIMIT_MS });
    expect(performance.now() - started).toBeLessThan(DEMO_LIMIT_MS);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain(`Summary: ${EVENT_TYPES.length} of ${EVENT_TYPES.length} events delivered`);
    expect(readdirSync(temp.path)).toEqual([]);
  });
});
