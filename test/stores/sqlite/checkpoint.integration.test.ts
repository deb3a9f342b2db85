import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { dist } from '../../helpers/dist.js';
import { OUTCOME_TIMEOUT_MS } from '../../helpers/patience.js';

const run = promisify(execFile);

describe('sqliteStore background checkpoints in a process of their own', () => {
  const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-checkpoint-exit-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // The checkpoint thread must not keep a process alive whose store was never closed.
  it('let the process exit by itself when its work is done, though the store was never closed', async () => {
    const script = `
      import { sqliteStore } from ${JSON.stringify(pathToFileURL(join(dist, 'index.js')).href)};
      const store = sqliteStore(${JSON.stringify(join(dir, 'events.db'))});
      for (let i = 0; i < 3; i++) {
        const claim = await store.claim('evt_' + i, { now: Date.now(), leaseMs: 30000 });
        await store.complete('evt_' + i, claim.token, Date.now());
        await new Promise((resolve) => setTimeout(resolve, 150)); // the thread is asked after each interval
      }
      console.log('done');
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { timeout: OUTCOME_TIMEOUT_MS });
    expect(stdout.trim()).toBe('done');
  });

  // A worker evaluates its source as an ES module in a process started with --input-type=module.
  it('copy the WAL into the database in a process started with --input-type=module too', async () => {
    const file = join(dir, 'module.db');
    const script = `
      import { statSync } from 'node:fs';
      import { sqliteStore } from ${JSON.stringify(pathToFileURL(join(dist, 'index.js')).href)};
      const store = sqliteStore(${JSON.stringify(file)});
      const size = () => statSync(${JSON.stringify(file)}).size;
      const initial = size();
      // Until the thread has checkpointed (the database file grows); it is asked at most every 100 ms.
      for (let i = 0; size() === initial; i++) {
        const claim = await store.claim('evt_' + i, { now: Date.now(), leaseMs: 30000 });
        await store.complete('evt_' + i, claim.token, Date.now());
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      await store.close();
      console.log('checkpointed');
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { timeout: OUTCOME_TIMEOUT_MS });
    expect(stdout.trim()).toBe('checkpointed');
  });
});
