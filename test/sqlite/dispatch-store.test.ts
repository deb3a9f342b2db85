import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, Dispatcher, SCHEMA_VERSION, SqliteDispatchStorage } from '../../src/dispatcher/index.js';
import { DUE_DELIVERIES_SQL, NEXT_DUE_SQL } from '../../src/dispatcher/sqlite-storage.js';
import { tempDir } from './fixtures.js';
import { closeWhenFinished, describeDispatchStorage } from './storage-contract.js';

function openStorage(file: string): SqliteDispatchStorage {
  const storage = new SqliteDispatchStorage(file);
  return storage;
}

// The contract every storage keeps, on a SQLite file of its own per test.
describeDispatchStorage('SqliteDispatchStorage', () => {
  const file = join(tempDir(), 'dispatch.db');
  return {
    open: () => Promise.resolve(closeWhenFinished(openStorage(file))),
    countDeliveries(status) {
      const db = new BetterSqlite3(file, { readonly: true });
      try {
        return Promise.resolve((db.prepare('SELECT COUNT(*) AS n FROM dispatch_deliveries WHERE status = ?').get(status) as { n: number }).n);
      } finally {
        db.close();
      }
    },
  };
});

// What only the SQLite storage has: its file, pragmas, query plans and the better-sqlite3 handle.
describe('SQLite storage: schema', () => {
  it('migrates once, idempotently, into dispatch_ tables, with WAL and synchronous=NORMAL', () => {
    const file = join(tempDir(), 'dispatch.db');
    const first = openStorage(file);
    void first.close();
    const storage = openStorage(file);
    const db = storage.db;
    expect(db.prepare('SELECT version FROM dispatch_schema_migrations').all()).toEqual([{ version: SCHEMA_VERSION }]);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
    expect(tables).toEqual(
      ['dispatch_attempts', 'dispatch_deliveries', 'dispatch_events', 'dispatch_schema_migrations', 'dispatch_webhooks'].map((name) => ({ name })),
    );
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    void storage.close();
  });

  it('answers both worker questions from the (status, next_attempt_at) index', () => {
    const storage = openStorage(join(tempDir(), 'dispatch.db'));
    const plan = (sql: string, ...params: number[]) =>
      storage.db
        .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...params)
        .map((row) => row.detail)
        .join('\n');
    expect(plan(DUE_DELIVERIES_SQL, 0, 10)).toMatch(/SEARCH d USING INDEX dispatch_deliveries_due/);
    expect(plan(DUE_DELIVERIES_SQL, 0, 10)).not.toMatch(/SCAN d\b|TEMP B-TREE/);
    expect(plan(NEXT_DUE_SQL)).toMatch(/USING (COVERING )?INDEX dispatch_deliveries_due/);
    void storage.close();
  });

  it('refuses a database written by a newer version, when the Dispatcher is built', () => {
    const file = join(tempDir(), 'dispatch.db');
    const storage = openStorage(file);
    storage.db.prepare('INSERT INTO dispatch_schema_migrations (version, applied_at) VALUES (?, ?)').run(SCHEMA_VERSION + 1, 'later');
    void storage.close();
    expect(() => new Dispatcher({ database: file, logger: false })).toThrow(ConfigurationError);
  });

  it('refuses a file it cannot open, when the Dispatcher is built', () => {
    expect(() => new Dispatcher({ database: join(tempDir(), 'missing-dir', 'x.db'), logger: false })).toThrow(ConfigurationError);
  });

  it("runs on ':memory:' (a database that lives as long as the Dispatcher)", async () => {
    const dispatcher = new Dispatcher({ database: ':memory:', logger: false, allowInsecureUrls: true });
    await dispatcher.webhooks.create({ url: 'http://127.0.0.1:9/', events: ['*'] });
    expect(await dispatcher.webhooks.list()).toHaveLength(1);
    await dispatcher.close();
  });

  it('works on an open better-sqlite3 database and leaves it open on close', async () => {
    const db = new BetterSqlite3(join(tempDir(), 'shared.db'));
    const dispatcher = new Dispatcher({ database: db, logger: false, allowInsecureUrls: true });
    await dispatcher.webhooks.create({ url: 'http://127.0.0.1:9/', events: ['*'] });
    await dispatcher.close();
    expect(db.open).toBe(true);
    expect(db.prepare('SELECT COUNT(*) AS n FROM dispatch_webhooks').get()).toEqual({ n: 1 });
    db.close();
  });
});
