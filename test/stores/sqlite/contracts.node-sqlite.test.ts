import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { sqliteDispatchStore, sqliteStore } from '../../../src/stores/sqlite/index.js';
import { openSqliteFile } from '../../../src/stores/sqlite/drivers.js';
import { tempDir } from '../../dispatcher/fixtures.js';
import { closeWhenFinished, describeDispatchStore, describeFairClaims, describeIdempotencyStore, describeInboxStore, type DispatchStoreFixture } from '../../helpers/contracts.js';
import { describeBackgroundCheckpoints } from './checkpoint-cases.js';

/*
 * The SQLite stores' contracts on node:sqlite, as test/stores/stores.test.ts and
 * test/stores/sqlite/dispatch-store.test.ts run them on better-sqlite3. This file is in the projects
 * only where Node.js has node:sqlite (vitest.config.ts), and the Node.js matrix
 * (test/node-lines/run.mjs) checks that it ran on every line that has.
 */
const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-node-sqlite-'));
let files = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DRIVER = 'node:sqlite';

describeIdempotencyStore('sqliteStore on node:sqlite', (options) => sqliteStore(join(dir, `store-${files++}.db`), { ...options, driver: DRIVER }));
describeInboxStore('sqliteStore on node:sqlite', (options) => sqliteStore(join(dir, `store-${files++}.db`), { ...options, driver: DRIVER }));

function nodeSqliteFixture(): DispatchStoreFixture {
  const file = join(tempDir(), 'dispatch.db');
  return {
    open: () => Promise.resolve(closeWhenFinished(sqliteDispatchStore(file, { driver: DRIVER }))),
    countDeliveries(status) {
      const { db } = openSqliteFile(file, DRIVER, 'database', { readonly: true });
      try {
        return Promise.resolve(db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM dispatch_deliveries WHERE status = ?').get(status)!.n);
      } finally {
        db.close();
      }
    },
  };
}
describeDispatchStore('sqliteDispatchStore on node:sqlite', nodeSqliteFixture);
describeFairClaims('sqliteDispatchStore on node:sqlite', nodeSqliteFixture);

describeBackgroundCheckpoints(DRIVER);
