import { TurnQueue } from '../../kernel/turn-queue.js';
import type { SqliteConnection } from './drivers.js';

type Outcome = { ok: true; value: unknown } | { ok: false; error: Error };

interface PendingUnit {
  unit: () => unknown;
  savepoint: boolean;
  resolve: (value: never) => void;
  reject: (error: Error) => void;
}

/**
 * Group commit for better-sqlite3: units of work submitted during one turn of the event loop run
 * in one IMMEDIATE transaction, so fifty concurrent deliveries share one commit instead of paying
 * fifty (in WAL mode the commit, not the statement, is the expensive part: measured in bench/).
 *
 * A unit that throws gets its error and the others commit. A unit of one statement is undone
 * alone by SQLite itself; a unit of several statements asks for a savepoint of its own
 * (`{ savepoint: true }`) so that its failure undoes all of its writes. A promise resolves only
 * after the commit: resolved means stored. If
 * the commit itself fails (another process held the lock past the busy timeout), every unit of
 * the batch is rejected and none is applied.
 */
export class GroupCommit {
  private readonly queue = new TurnQueue<PendingUnit>((batch) => this.flush(batch));
  private readonly runBatch: (batch: PendingUnit[], outcomes: Outcome[]) => void;

  /** @param afterCommit runs after each commit, outside the transaction (background checkpoints); must not throw */
  constructor(
    db: SqliteConnection,
    private readonly afterCommit: () => void = () => undefined,
  ) {
    const transaction = db.transaction((batch: PendingUnit[], outcomes: Outcome[]) => {
      for (const pending of batch) {
        try {
          outcomes.push({ ok: true, value: pending.savepoint ? savepoint(pending.unit) : pending.unit() });
        } catch (error) {
          outcomes.push({ ok: false, error: asError(error) });
        }
      }
    });
    // A transaction function called inside another runs as a savepoint.
    const savepoint = db.transaction((unit: () => unknown) => unit());
    this.runBatch = (batch, outcomes) => transaction.immediate(batch, outcomes);
  }

  /** Runs `unit` in the next batch; resolves with its result once the batch has committed. */
  write<T>(unit: () => T, options: { savepoint?: boolean } = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => this.queue.push({ unit, savepoint: options.savepoint ?? false, resolve, reject }));
  }

  private flush(batch: PendingUnit[]): void {
    const outcomes: Outcome[] = [];
    try {
      this.runBatch(batch, outcomes);
    } catch (error) {
      for (const pending of batch) pending.reject(asError(error));
      return;
    }
    batch.forEach((pending, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) pending.resolve(outcome.value as never);
      else pending.reject(outcome.error);
    });
    this.afterCommit();
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
