import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError, memoryStore } from '../../src/index.js';
import { sqliteStore } from '../../src/stores/sqlite/index.js';
import { MIN_RETENTION_MS } from '../../src/ports/idempotency-store.js';
import { describeIdempotencyStore, describeInboxStore } from '../helpers/contracts.js';

const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-stores-'));
let files = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeIdempotencyStore('memoryStore', (options) => memoryStore(options));
describeIdempotencyStore('sqliteStore', (options) => sqliteStore(join(dir, `store-${files++}.db`), { ...options, driver: 'better-sqlite3' }));
describeInboxStore('memoryStore', (options) => memoryStore(options));
describeInboxStore('sqliteStore', (options) => sqliteStore(join(dir, `store-${files++}.db`), { ...options, driver: 'better-sqlite3' }));
// On node:sqlite: test/stores/sqlite/contracts.node-sqlite.test.ts; postgresStore keeps the same
// contracts (published from acct-webhook/testing): test/stores/postgres/store-contract.test.ts.

describe('the stores\' options', () => {
  it('keep records 30 days by default and refuse less than 35 hours', () => {
    const store = sqliteStore(join(dir, 'defaults.db'));
    expect(store.retentionMs).toBe(30 * 24 * 3600_000);
    void store.close();
    expect(memoryStore().retentionMs).toBe(30 * 24 * 3600_000);
    for (const create of [(options: object) => sqliteStore(join(dir, 'short.db'), options), (options: object) => memoryStore(options)]) {
      expect(() => create({ retentionMs: MIN_RETENTION_MS - 1 })).toThrow(expect.objectContaining({ details: expect.objectContaining({ option: 'retentionMs' }) }));
      expect(() => create({ retention: MIN_RETENTION_MS })).toThrow(expect.objectContaining({ details: { option: 'retention', reason: 'is not an option' } }));
    }
  });

  it('are checked before a file is opened, and name the option at fault', () => {
    for (const [options, option] of [
      [{ synchronous: 'OFF' }, 'synchronous'],
      [{ busyTimeoutMs: 1.5 }, 'busyTimeoutMs'],
      [{ retentionMs: Number.POSITIVE_INFINITY }, 'retentionMs'],
    ] as const) {
      const file = join(dir, `refused-${option}.db`);
      expect(() => sqliteStore(file, options as never)).toThrow(ConfigurationError);
      expect(() => sqliteStore(file, options as never)).toThrow(expect.objectContaining({ details: { option, reason: expect.any(String) } }));
      expect(existsSync(file)).toBe(false);
    }
  });
});

describe('sqliteStore', () => {

  it('works on a Database the application already has open, in WAL mode, and leaves it open on close', async () => {
    const db = new Database(join(dir, 'shared.db'));
    const store = sqliteStore(db);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    await store.claim('evt_1', { now: 1, leaseMs: 10 });
    await store.close();
    expect(db.open).toBe(true);
    db.close();
  });

  it('refuses a directory that does not exist with a clear configuration error', () => {
    expect(() => sqliteStore(join(dir, 'missing', 'nested', 'events.db'))).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: { option: 'database', reason: expect.stringContaining('cannot be opened') } }),
    );
  });
});

describe('sqliteStore group commit', () => {
  it('commits the claims of concurrent deliveries together, each with its own answer', async () => {
    const file = join(dir, 'group.db');
    const store = sqliteStore(file);
    const claims = await Promise.all(
      ['evt_a', 'evt_b', 'evt_a', 'evt_c'].map((id) => store.claim(id, { now: 1_000, leaseMs: 30_000 })),
    );
    expect(claims.map((claim) => claim.status)).toEqual(['claimed', 'claimed', 'in_progress', 'claimed']);
    const reader = new Database(file, { readonly: true });
    expect(reader.prepare('SELECT COUNT(*) AS n FROM acct_webhook_events').get()).toEqual({ n: 3 });
    reader.close();
    await store.close();
  });

  it('fails every write of a batch, applying none, when another process holds the lock too long', async () => {
    const file = join(dir, 'locked.db');
    const store = sqliteStore(file, { busyTimeoutMs: 50 });
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    const results = await Promise.allSettled(['evt_1', 'evt_2'].map((id) => store.claim(id, { now: 1, leaseMs: 10 })));
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    other.exec('ROLLBACK');
    other.close();
    expect(await store.claim('evt_1', { now: 2, leaseMs: 10 })).toMatchObject({ status: 'claimed', takeover: false });
    await store.close();
  });
});
