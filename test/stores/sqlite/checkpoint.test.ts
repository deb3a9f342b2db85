import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteStore } from '../../../src/stores/sqlite/index.js';
import { describeBackgroundCheckpoints } from './checkpoint-cases.js';

const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-checkpoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeBackgroundCheckpoints('better-sqlite3');
// On node:sqlite: test/stores/sqlite/contracts.node-sqlite.test.ts.

describe('background checkpoints', () => {
  it('are not started for an application’s own connection, whose automatic checkpoints stay', async () => {
    const file = join(dir, 'app.db');
    const db = new BetterSqlite3(file);
    const store = sqliteStore(db);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    await store.close();
    db.close();
  });
});
