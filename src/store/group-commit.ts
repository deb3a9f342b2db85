import type Database from 'better-sqlite3';

type Outcome = { ok: true; value: unknown } | { ok: false; error: Error };

interface PendingWrite {
  run: () => unknown;
  resolve: (value: never) => void;
  reject: (error: Error) => void;
}

/**
 * Group commit: writes queued during one turn of the event loop run in one transaction, so
 * fifty concurrent deliveries cost one commit instead of fifty (in WAL mode the commit, not the
 * statement, is the expensive part). Each write still gets its own result or error; a failed
 * commit (the lock held by another process for longer than the busy timeout) fails every write
 * of the batch, and none of them is applied.
 */
export class GroupCommit {
  private queue: PendingWrite[] = [];
  private scheduled = false;

  private readonly runBatch: (batch: PendingWrite[], outcomes: Outcome[]) => void;

  constructor(db: Database.Database) {
    const transaction = db.transaction((batch: PendingWrite[], outcomes: Outcome[]) => {
      for (const write of batch) {
        try {
          outcomes.push({ ok: true, value: write.run() });
        } catch (error) {
          outcomes.push({ ok: false, error: error as Error });
        }
      }
    });
    this.runBatch = (batch, outcomes) => transaction.immediate(batch, outcomes);
  }

  write<T>(run: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, resolve: resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    const outcomes: Outcome[] = [];
    try {
      this.runBatch(batch, outcomes);
    } catch (error) {
      for (const write of batch) write.reject(error as Error);
      return;
    }
    batch.forEach((write, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) write.resolve(outcome.value as never);
      else write.reject(outcome.error);
    });
  };
}
