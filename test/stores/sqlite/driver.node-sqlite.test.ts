import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createReceiver, Webhooks } from '../../../src/index.js';
import { createTestEvent, signedRequest } from '../../../src/testing/index.js';
import { sqliteDispatchStore, sqliteStore } from '../../../src/stores/sqlite/index.js';
import { openSqliteFile, type SqliteConnection, type SqliteDriver } from '../../../src/stores/sqlite/drivers.js';
import { NOW, storedEvent, webhook } from '../../../src/testing/dispatch-store-contract.js';

/*
 * What node:sqlite must do as better-sqlite3 does for the stores to be the same on both: the
 * adapter (src/stores/sqlite/node-sqlite.ts) and one file shared by the two drivers. In the projects only
 * where Node.js has node:sqlite (vitest.config.ts); better-sqlite3 is built for every line the
 * Node.js matrix runs (test/node-lines/run.mjs).
 */
const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-node-sqlite-driver-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newFile = () => join(dir, `file-${files++}.db`);
const open = (file: string, driver: SqliteDriver): SqliteConnection => openSqliteFile(file, driver, 'database').db;
const SECRET = 'whsec_nodeSqliteDriverSecret000000000';

describe('one file, either driver', () => {
  it.each<[SqliteDriver, SqliteDriver]>([
    ['node:sqlite', 'better-sqlite3'],
    ['better-sqlite3', 'node:sqlite'],
  ])('a store file made on %s is used as it is on %s: the same schema, its migrations not applied again', async (first, second) => {
    const file = newFile();
    const writer = sqliteStore(file, { driver: first });
    const claim = await writer.claim('evt_shared', { now: 1_000, leaseMs: 30_000, type: 'invoice.paid' });
    if (claim.status !== 'claimed') throw new Error('not claimed');
    await writer.complete('evt_shared', claim.token, 2_000);
    await writer.close();
    const schema = (driver: SqliteDriver) => {
      const db = open(file, driver);
      try {
        return {
          tables: db.prepare("SELECT name, sql FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY name").all(),
          migrations: db.prepare('SELECT component, version, applied_at FROM acct_webhook_migrations ORDER BY version').all(),
        };
      } finally {
        db.close();
      }
    };
    const before = schema(first);
    const reader = sqliteStore(file, { driver: second });
    expect(await reader.claim('evt_shared', { now: 3_000, leaseMs: 30_000 })).toEqual({ status: 'completed', completedAt: 2_000 });
    await reader.close();
    expect(schema(second)).toEqual(before);
  });

  it('the dispatch store too: what one driver recorded, the other lists', async () => {
    const file = newFile();
    const writer = sqliteDispatchStore(file, { driver: 'node:sqlite' });
    const registration = webhook('wh_1', { headers: { 'x-tenant': 'Grüße 💶' } });
    await writer.insertWebhook(registration);
    await writer.insertEvent(storedEvent('evt_1'), [{ id: 'dlv_1', webhook_id: 'wh_1', next_attempt_at: NOW }]);
    await writer.close();
    const reader = sqliteDispatchStore(file, { driver: 'better-sqlite3' });
    expect(await reader.getWebhook('wh_1')).toEqual(registration);
    expect((await reader.claimDue({ now: NOW, limit: 10, lease: { owner: 'w', until: NOW + 1 } })).map((job) => job.delivery.id)).toEqual(['dlv_1']);
    await reader.close();
  });
});

describe('a file node:sqlite cannot use', () => {
  it.each([
    ['in a directory that does not exist', () => join(dir, 'missing', 'nested', 'events.db')],
    [
      'that is not a SQLite database',
      () => {
        const file = newFile();
        writeFileSync(file, 'not a database, but long enough to have a header of its own\n'.repeat(100));
        return file;
      },
    ],
  ])('%s is refused when the store is created, with a clear configuration error', (_case, file) => {
    expect(() => sqliteStore(file(), { driver: 'node:sqlite' })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: { option: 'database', reason: expect.stringContaining('cannot be opened') } }),
    );
  });
});

describe('node:sqlite with better-sqlite3’s semantics', () => {
  function table() {
    const db = open(newFile(), 'node:sqlite');
    db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, body BLOB, note TEXT)');
    return db;
  }

  it('binds one object of named values in any place, ignores keys the SQL does not name, and binds undefined as NULL', () => {
    const db = table();
    const insert = db.prepare<Record<string, unknown>>('INSERT INTO items (id, name, note) VALUES (@id, @name, @note)');
    expect(insert.run({ id: 1, name: 'a', note: undefined, unused: 'x' })).toEqual({ changes: 1, lastInsertRowid: 1 });
    db.prepare('INSERT INTO items (id, name, note) VALUES (?, @name, ?)').run(2, { name: 'b' }, undefined);
    db.prepare('INSERT INTO items (id, name) VALUES (?, ?)').run([3, 'c']);
    expect(db.prepare('SELECT id, name, note FROM items ORDER BY id').all()).toEqual([
      { id: 1, name: 'a', note: null },
      { id: 2, name: 'b', note: null },
      { id: 3, name: 'c', note: null },
    ]);
    expect(db.prepare('SELECT id FROM items WHERE id = ?').get(9)).toBeUndefined();
    db.close();
  });

  it('reads BLOBs as Buffers and TEXT whole, NUL characters included, also through RETURNING', () => {
    const db = table();
    const name = 'bad\u0000answer 💶 \u0001 end';
    const returned = db.prepare('INSERT INTO items (id, name, body) VALUES (?, ?, ?) RETURNING id, name, body').get(1, name, Buffer.from([0, 1, 2]));
    expect(returned).toEqual({ id: 1, name, body: Buffer.from([0, 1, 2]) });
    const row = db.prepare<[], { name: string; body: Buffer; length: number }>('SELECT i.name, i.body, length(i.name) AS length FROM items i').get()!;
    expect(row.name).toBe(name);
    expect(Buffer.isBuffer(row.body)).toBe(true);
    expect(row.body).toEqual(Buffer.from([0, 1, 2]));
    db.close();
  });

  it('runs a transaction function all or nothing, a nested one as a savepoint undone alone', () => {
    const db = table();
    const insert = db.prepare('INSERT INTO items (id, name) VALUES (?, ?)');
    const inner = db.transaction((id: number) => {
      insert.run(id, 'inner');
      throw new Error('inner fails');
    });
    const outer = db.transaction(() => {
      insert.run(1, 'outer');
      expect(() => inner(2)).toThrow('inner fails');
      insert.run(3, 'after');
      return 'done';
    });
    expect(outer.immediate()).toBe('done');
    expect(db.prepare('SELECT id FROM items ORDER BY id').all()).toEqual([{ id: 1 }, { id: 3 }]);
    expect(() => db.transaction(() => insert.run(4, 'x') && insert.run(1, 'duplicate'))()).toThrow();
    expect(() => db.transaction(() => Promise.resolve())()).toThrow(TypeError);
    expect(db.prepare('SELECT COUNT(*) AS n FROM items').get()).toEqual({ n: 2 });
    db.close();
  });

  it('takes the write lock with immediate(): another connection waits for it, then fails after its busy timeout', () => {
    const file = newFile();
    const db = open(file, 'node:sqlite');
    db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY)');
    const other = open(file, 'node:sqlite');
    other.pragma('busy_timeout = 0');
    db.transaction(() => {
      // SQLITE_BUSY: node:sqlite's errors carry SQLite's result code as `errcode`.
      expect(() => other.exec('INSERT INTO items VALUES (1)')).toThrow(expect.objectContaining({ errcode: 5 }));
    }).immediate();
    other.exec('INSERT INTO items VALUES (1)');
    other.close();
    db.close();
  });

  it('gives an atomic effect a Database with better-sqlite3’s API, committed with the completion', async () => {
    const file = newFile();
    const store = sqliteStore(file, { driver: 'node:sqlite' });
    const hooks = new Webhooks().on('payment.received', (event, { atomic }) => {
      atomic((tx) => {
        tx.exec('CREATE TABLE IF NOT EXISTS payments (event_id TEXT NOT NULL, amount INTEGER NOT NULL)');
        tx.prepare('INSERT INTO payments VALUES (@id, @amount)').run({ id: event.id, amount: event.data.object.amount });
      });
    });
    const receiver = createReceiver({ secret: SECRET, handlers: hooks, store, logger: false });
    const { body, headers } = signedRequest(createTestEvent('payment.received'), SECRET);
    expect((await receiver.receive({ rawBody: body, headers, method: 'POST' })).status).toBe(200);
    expect((await receiver.receive({ rawBody: body, headers, method: 'POST' })).body).toMatchObject({ duplicate: true });
    await receiver.close();
    await store.close();
    const db = open(file, 'better-sqlite3');
    expect(db.prepare('SELECT event_id FROM payments').all()).toEqual([{ event_id: (JSON.parse(body) as { id: string }).id }]);
    db.close();
  });
});
