import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { SQLITE_DRIVER_PACKAGE, type SqliteConnection, type SqliteDriver } from './drivers.js';

/** How often at most the background thread is asked to checkpoint while writes come in. */
export const CHECKPOINT_INTERVAL_MS = 100;
/**
 * The WAL file's bound. Past it, the writer finishes the checkpoint itself between two commits
 * (so that its next write starts the WAL from the beginning), and SQLite truncates the file back
 * to it when the WAL restarts.
 */
export const WAL_LIMIT_BYTES = 32 * 1024 * 1024;

/*
 * The background thread: a connection of its own to the same file that copies the WAL into the
 * database (PASSIVE: it never waits for, nor blocks, a writer or a reader), when asked. Source
 * evaluated as the worker's script, with the store's driver: better-sqlite3 by its resolved path,
 * or node:sqlite (its ExperimentalWarning on Node.js 22 held back in this thread too, as
 * withoutSqliteWarning does in the main one). Modules come from process.getBuiltinModule, not
 * `require`: a worker evaluates its source as an ES module when the process was started with
 * --input-type=module, and there is no `require` there.
 */
const OPEN_IN_THREAD: Record<SqliteDriver, string> = {
  'better-sqlite3': `
    const Driver = load('node:module').createRequire(workerData.driver)(workerData.driver);
    const db = new Driver(workerData.file, { fileMustExist: true, timeout: 0 });
    const checkpoint = () => db.pragma('wal_checkpoint(PASSIVE)');`,
  'node:sqlite': `
    const emitWarning = process.emitWarning;
    process.emitWarning = function (warning, type, ...rest) {
      if (type === 'ExperimentalWarning' && String(warning).startsWith('SQLite ')) return;
      return emitWarning.call(this, warning, type, ...rest);
    };
    const { DatabaseSync } = load('node:sqlite');
    process.emitWarning = emitWarning;
    const db = new DatabaseSync(workerData.file);
    const checkpoint = () => db.exec('PRAGMA wal_checkpoint(PASSIVE)');`,
};

const checkpointerSource = (driver: SqliteDriver) => `
const load = (id) => process.getBuiltinModule(id);
const { parentPort, workerData } = load('node:worker_threads');
${OPEN_IN_THREAD[driver]}
parentPort.on('message', () => {
  try {
    checkpoint();
  } catch {
    // Tried again on the next request; the writer keeps the WAL bounded in any case.
  }
  parentPort.postMessage('done');
});
`;

/** What the group commit calls after each commit, and `close()`. */
export interface Checkpoints {
  afterCommit(this: void): void;
  close(this: void): Promise<void>;
}

/**
 * Moves WAL checkpoints off the request path. SQLite's automatic checkpoint runs inside the commit
 * that crosses 1 000 pages — on the event loop, with two fsyncs — so every so often a group of
 * deliveries waits for it. Here it is switched off; a worker thread with a connection of its own
 * checkpoints (PASSIVE) at most every {@link CHECKPOINT_INTERVAL_MS} while writes come in.
 *
 * The thread cannot restart the WAL (only a writer can, and only when no commit came between the
 * checkpoint and its next write), so the writer keeps it bounded: once the WAL file is larger
 * than {@link WAL_LIMIT_BYTES}, it checkpoints the rest itself after a commit, outside any
 * transaction; its next write then starts the WAL from the beginning and SQLite truncates the
 * file to the limit. While the thread's own checkpoint runs, the writer does not try (one
 * checkpoint at a time), so the file may outgrow the limit by what is committed meanwhile. A
 * checkpoint that fails or is refused is tried again after the next commit; it never fails or
 * delays a write.
 *
 * Only for a connection this package opened on a file in WAL mode (anything else: `undefined`,
 * and SQLite's own checkpoints stay as they are).
 */
export function backgroundCheckpoints(
  db: SqliteConnection,
  driver: SqliteDriver,
  { walLimitBytes = WAL_LIMIT_BYTES, intervalMs = CHECKPOINT_INTERVAL_MS }: { walLimitBytes?: number; intervalMs?: number } = {},
): Checkpoints | undefined {
  const file = db.name;
  if (db.memory || db.pragma('journal_mode', { simple: true }) !== 'wal') return undefined;
  db.pragma('wal_autocheckpoint = 0');
  db.pragma(`journal_size_limit = ${walLimitBytes}`);
  const wal = `${file}-wal`;
  const workerData = { file, driver: driver === 'better-sqlite3' ? createRequire(import.meta.url).resolve(SQLITE_DRIVER_PACKAGE) : driver };
  const worker = new Worker(checkpointerSource(driver), { eval: true, workerData });
  let busy = false;
  let lastAsked = 0;
  worker.on('message', () => {
    busy = false;
  });
  let threadFailed = false;
  // A thread that failed (its connection could not open the file): the writer's own checkpoints
  // after a commit keep the WAL bounded.
  worker.on('error', () => {
    threadFailed = true;
    busy = false;
  });
  // After the listeners (adding one refs the thread again): a store never closed must not keep
  // the process alive.
  worker.unref();

  return {
    afterCommit() {
      // One checkpoint at a time: while the thread's runs, the writer's would only be refused.
      if (busy) return;
      try {
        if (walSize(wal) > walLimitBytes) {
          db.pragma('wal_checkpoint(PASSIVE)');
          return;
        }
      } catch {
        // The next commit tries again.
      }
      const now = performance.now();
      if (!threadFailed && now - lastAsked >= intervalMs) {
        busy = true;
        lastAsked = now;
        worker.postMessage('checkpoint');
      }
    },
    async close() {
      await worker.terminate();
    },
  };
}

function walSize(file: string): number {
  return statSync(file, { throwIfNoEntry: false })?.size ?? 0;
}
