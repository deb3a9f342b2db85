import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { loadBuilt } from '../helpers/dist.js';
import { killedWithEventsPending } from '../helpers/inbox-crash.js';

const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-inbox-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('inbox mode on SQLite after a crash', () => {
  it('finishes, once each, the events a SIGKILLed receiver process left running or pending', async () => {
    const { sqliteStore } = await loadBuilt('index');
    const file = join(dir, 'events.db');
    await killedWithEventsPending(['sqlite', file], () => sqliteStore(file));
  });
});
