import { TurnQueue } from '../../kernel/turn-queue.js';

interface Pending<I, O> {
  item: I;
  resolve: (outcome: O) => void;
  reject: (error: Error) => void;
}

/** SQLSTATEs after which a statement or transaction that was rolled back may simply run again. */
const RETRYABLE = new Set(['40P01', '40001']); // deadlock_detected, serialization_failure
const MAX_TRIES = 3;

/**
 * Collects the items submitted during one turn of the event loop and runs them with one call of
 * `run` (one statement, or one transaction, for all of them instead of a round trip each). `run`
 * answers one outcome per item, in order. If it fails, every item of the batch is rejected with
 * that error: a batch is one statement or one transaction, so nothing of it was stored. A
 * deadlock or serialization failure is tried again first (it was rolled back as a whole).
 */
export class TurnBatch<I, O> {
  private readonly queue = new TurnQueue<Pending<I, O>>((batch) => this.flush(batch));

  constructor(private readonly run: (items: readonly I[]) => Promise<O[]>) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => this.queue.push({ item, resolve, reject }));
  }

  private flush(batch: Pending<I, O>[]): void {
    this.runWithRetries(batch.map((pending) => pending.item)).then(
      (outcomes) => batch.forEach((pending, i) => pending.resolve(outcomes[i]!)),
      (error: unknown) => {
        const failure = error instanceof Error ? error : new Error(String(error));
        for (const pending of batch) pending.reject(failure);
      },
    );
  }

  private async runWithRetries(items: readonly I[]): Promise<O[]> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.run(items);
      } catch (error) {
        if (tries >= MAX_TRIES || !RETRYABLE.has((error as { code?: unknown }).code as string)) throw error;
      }
    }
  }
}
