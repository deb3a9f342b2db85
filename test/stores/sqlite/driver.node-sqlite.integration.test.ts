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

// Node.js 22 prints "ExperimentalWarning: SQLite is an experimental feature" when node:sqlite is
// first loaded, in each thread (Node.js 24 no longer does). The package holds it back in the main
// thread and in the checkpoint thread: a receiver's console shows nothing it did not ask for.
describe('the SQLite stores on node:sqlite, in a process of their own', () => {
  const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-node-sqlite-process-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // Writes until the checkpoint thread has copied the WAL into the database file (its size
  // grows): the thread has then loaded node:sqlite. It is asked at most every 100 ms.
  const work = (file: string) => `
    const store = sqliteStore(${JSON.stringify(file)}, { driver: 'node:sqlite' });
    const dispatch = sqliteDispatchStore(${JSON.stringify(`${file}.dispatch`)}, { driver: 'node:sqlite' });
    const size = () => statSync(${JSON.stringify(file)}).size;
    const initial = size();
    for (let i = 0; size() === initial; i++) {
      const claim = await store.claim('evt_' + i, { now: Date.now(), leaseMs: 30000 });
      await store.complete('evt_' + i, claim.token, Date.now());
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    await store.close();
    await dispatch.close();
    console.log('done');
  `;

  it.each([
    ['ESM (import)', 'module', (file: string) => `import { statSync } from 'node:fs';
      import { sqliteStore } from ${JSON.stringify(pathToFileURL(join(dist, 'index.js')).href)};
      import { sqliteDispatchStore } from ${JSON.stringify(pathToFileURL(join(dist, 'sqlite.js')).href)};
      ${work(file)}`],
    ['CommonJS (require)', 'commonjs', (file: string) => `const { statSync } = require('node:fs');
      const { sqliteStore } = require(${JSON.stringify(join(dist, 'index.cjs'))});
      const { sqliteDispatchStore } = require(${JSON.stringify(join(dist, 'sqlite.cjs'))});
      (async () => { ${work(file)} })().catch((error) => { console.error(error); process.exit(1); });`],
  ])('%s: work, and print no warning', async (_name, type, script) => {
    const { stdout, stderr } = await run(process.execPath, [`--input-type=${type}`, '-e', script(join(dir, `${type}.db`))], { timeout: OUTCOME_TIMEOUT_MS });
    expect(stdout.trim()).toBe('done');
    expect(stderr).toBe('');
  });
});
