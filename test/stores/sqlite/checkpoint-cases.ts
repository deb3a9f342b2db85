import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { backgroundCheckpoints, type Checkpoints } from '../../../src/stores/sqlite/checkpoint.js';
import { openConnection } from '../../../src/stores/sqlite/open-connection.js';
import { openSqliteFile, type SqliteDriver } from '../../../src/stores/sqlite/drivers.js';
import { GroupCommit } from '../../../src/stores/sqlite/group-commit.js';

/** A WAL bound small enough to cross in a few hundred batches. */
const LIMIT = 256 * 1024;
const walSize = (file: string) => statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;

/** The background checkpoints of a store's own connection, on `driver` (its thread opens the file with the same driver). */
export function describeBackgroundCheckpoints(driver: SqliteDriver): void {
  const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-checkpoint-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let files = 0;
  /** Another connection to `file`, with the same driver. */
  const connect = (file: string, options: { readonly?: boolean } = {}) => openSqliteFile(file, driver, 'database', options).db;

  /** A file in WAL mode with background checkpoints, and a writer that group-commits 50 rows of about 200 bytes at a time. */
  function setup(options: { intervalMs?: number } = {}) {
    const file = join(dir, `wal-${files++}.db`);
    const { db } = openConnection(file, { driver });
    db.exec('CREATE TABLE items (id TEXT PRIMARY KEY, payload TEXT NOT NULL)');
    const checkpoints = backgroundCheckpoints(db, driver, { walLimitBytes: LIMIT, ...options }) as Checkpoints;
    const group = new GroupCommit(db, checkpoints.afterCommit);
    const insert = db.prepare<[string, string]>('INSERT INTO items (id, payload) VALUES (?, ?)');
    let next = 0;
    const writeBatch = () => Promise.all(Array.from({ length: 50 }, () => group.write(() => insert.run(`item-${next++}`, 'x'.repeat(200)).changes)));
    const close = async () => {
      await checkpoints.close();
      db.close();
    };
    return { file, db, writeBatch, close, count: () => next };
  }

  describe(`background checkpoints on ${driver}`, () => {
    // The thread is not asked here (its timing is the scheduler's): the writer's own part alone
    // must keep the bound.
    it('keep the WAL file within its bound (plus one commit) under sustained writes', async () => {
      const { file, writeBatch, close } = setup({ intervalMs: Number.POSITIVE_INFINITY });
      let largest = 0;
      for (let batch = 0; batch < 300; batch++) {
        expect(await writeBatch()).toEqual(Array(50).fill(1));
        largest = Math.max(largest, walSize(file));
      }
      await close();
      // 300 × 50 rows of ~200 bytes is several times the bound: without checkpoints the WAL would hold it all.
      expect(largest).toBeGreaterThan(LIMIT / 2);
      expect(largest).toBeLessThanOrEqual(LIMIT + 64 * 4096);
    });

    it('turn SQLite’s checkpoint inside the commit off, and the thread copies the WAL into the database in the background', async () => {
      const { file, db, writeBatch, close } = setup({ intervalMs: 0 });
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      await writeBatch();
      // Well under the bound, so only the thread checkpoints; a fresh connection then finds nothing left to copy.
      await vi.waitFor(
        async () => {
          await writeBatch();
          const other = connect(file);
          const [state] = other.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
          other.close();
          expect(state!.checkpointed).toBeGreaterThan(0);
        },
        { timeout: 5_000, interval: 20 },
      );
      await close();
    });

    it('never block or fail a write while a reader holds the WAL, and bring it back within its bound once the reader is done', async () => {
      const { file, writeBatch, close, count } = setup({ intervalMs: Number.POSITIVE_INFINITY });
      const reader = connect(file, { readonly: true });
      reader.exec('BEGIN');
      reader.prepare('SELECT COUNT(*) FROM items').get(); // a snapshot: frames after it cannot be reset
      for (let batch = 0; batch < 200; batch++) expect(await writeBatch()).toEqual(Array(50).fill(1));
      expect(walSize(file)).toBeGreaterThan(LIMIT);
      reader.exec('COMMIT');
      reader.close();
      for (let batch = 0; batch < 20; batch++) await writeBatch();
      expect(walSize(file)).toBeLessThanOrEqual(LIMIT + 64 * 4096);
      await close();
      const check = connect(file);
      expect(check.prepare('SELECT COUNT(*) AS n FROM items').get()).toEqual({ n: count() });
      check.close();
    });
  });
}
