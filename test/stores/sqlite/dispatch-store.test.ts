import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../../src/index.js';
import { Dispatcher } from '../../../src/dispatcher.js';
import { sqliteDispatchStore } from '../../../src/stores/sqlite/index.js';
import { DUE_OF_WEBHOOK_SQL, NEXT_DUE_SQL } from '../../../src/stores/sqlite/dispatch-statements.js';
import { tempDir } from '../../dispatcher/fixtures.js';
import { closeWhenFinished, describeDispatchStore, describeFairClaims, type DispatchStoreFixture } from '../../helpers/contracts.js';

// The contract every store keeps, on a SQLite file of its own per test.
function sqliteFixture(): DispatchStoreFixture {
  const file = join(tempDir(), 'dispatch.db');
  return {
    open: () => Promise.resolve(closeWhenFinished(sqliteDispatchStore(file, { driver: 'better-sqlite3' }))),
    countDeliveries(status) {
      const db = new BetterSqlite3(file, { readonly: true });
      try {
        return Promise.resolve((db.prepare('SELECT COUNT(*) AS n FROM dispatch_deliveries WHERE status = ?').get(status) as { n: number }).n);
      } finally {
        db.close();
      }
    },
  };
}
describeDispatchStore('sqliteDispatchStore', sqliteFixture);
describeFairClaims('sqliteDispatchStore', sqliteFixture);
// On node:sqlite: test/stores/sqlite/contracts.node-sqlite.test.ts.

/** A connection of the test's own on a fresh file, closed when the test ends. */
function openFile(): { file: string; db: BetterSqlite3.Database } {
  const file = join(tempDir(), 'dispatch.db');
  const db = new BetterSqlite3(file);
  return { file, db };
}

// What only the SQLite store has: its file, pragmas, query plans and the caller's own connection.
describe('sqliteDispatchStore: the file', () => {
  it('migrates once, idempotently, into dispatch_ tables, in WAL mode with the durability asked for', async () => {
    const { db } = openFile();
    await sqliteDispatchStore(db).close();
    await sqliteDispatchStore(db, { synchronous: 'FULL', busyTimeoutMs: 250 }).close();
    expect(db.prepare('SELECT component, version FROM acct_webhook_migrations ORDER BY version').all()).toEqual([
      { component: 'dispatch', version: 1 },
      { component: 'dispatch', version: 2 },
      { component: 'dispatch', version: 3 },
      { component: 'dispatch', version: 4 },
      { component: 'dispatch', version: 5 },
      { component: 'dispatch', version: 6 },
      { component: 'dispatch', version: 7 },
      { component: 'dispatch', version: 8 },
      { component: 'dispatch', version: 9 },
      { component: 'dispatch', version: 10 },
    ]);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
    expect(tables).toEqual(
      ['acct_webhook_migrations', 'dispatch_attempts', 'dispatch_deliveries', 'dispatch_events', 'dispatch_schema_migrations', 'dispatch_skipped', 'dispatch_webhooks'].map((name) => ({ name })),
    );
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL
    expect(db.pragma('busy_timeout', { simple: true })).toBe(250);
    db.close();
  });

  it('answers both worker questions from the partial indexes of what a claim can take, without sorting', () => {
    const { db } = openFile();
    void sqliteDispatchStore(db).close();
    const plan = (sql: string, ...params: (number | string)[]) =>
      db
        .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...params)
        .map((row) => row.detail)
        .join('\n');
    for (const [sql, index, params] of [
      [DUE_OF_WEBHOOK_SQL, 'dispatch_deliveries_queue', ['wh_1', 0, 10]],
      [NEXT_DUE_SQL, 'dispatch_deliveries_due', []],
    ] as const) {
      expect(plan(sql, ...params)).toMatch(new RegExp(`USING (COVERING )?INDEX ${index}`));
      expect(plan(sql, ...params)).not.toMatch(/TEMP B-TREE/);
    }
    db.close();
  });

  it('refuses options it does not know and values it cannot use, naming the option', () => {
    const { file } = openFile();
    for (const [options, option] of [
      [{ synchronous: 'OFF' }, 'synchronous'],
      [{ busyTimeoutMs: -1 }, 'busyTimeoutMs'],
      [{ busy_timeout: 5 }, 'busy_timeout'],
    ] as const) {
      expect(() => sqliteDispatchStore(file, options as never)).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: expect.objectContaining({ option }) }));
    }
    for (const target of ['', '  ', 42, {}]) {
      expect(() => sqliteDispatchStore(target as never)).toThrow(expect.objectContaining({ details: expect.objectContaining({ option: 'database' }) }));
    }
  });

  it('refuses a file it cannot open, or one that is not a database, when the Dispatcher is built', () => {
    const dir = tempDir();
    expect(() => new Dispatcher({ database: join(dir, 'missing-dir', 'x.db'), logger: false })).toThrow(ConfigurationError);
    const notADatabase = join(dir, 'notes.txt');
    writeFileSync(notADatabase, 'these are notes, not a database, and long enough to fill a header');
    expect(() => new Dispatcher({ database: notADatabase, logger: false })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: expect.objectContaining({ option: 'database' }) }));
  });

  it("runs on ':memory:' (a database that lives as long as the Dispatcher)", async () => {
    const dispatcher = new Dispatcher({ database: ':memory:', logger: false, allowInsecureUrls: true });
    await dispatcher.webhooks.create({ url: 'http://127.0.0.1:9/', events: ['*'] });
    expect(await dispatcher.webhooks.list()).toHaveLength(1);
    await dispatcher.close();
  });

  it('works on an open better-sqlite3 database, given as a store, and leaves it open', async () => {
    const { db } = openFile();
    const store = sqliteDispatchStore(db);
    const dispatcher = new Dispatcher({ store, logger: false, allowInsecureUrls: true });
    await dispatcher.webhooks.create({ url: 'http://127.0.0.1:9/', events: ['*'] });
    await dispatcher.close();
    await store.close();
    expect(db.open).toBe(true);
    expect(db.prepare('SELECT COUNT(*) AS n FROM dispatch_webhooks').get()).toEqual({ n: 1 });
    db.close();
  });
});
