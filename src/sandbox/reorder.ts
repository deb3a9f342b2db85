/** A held attempt's turn: it may be forwarded now; `done()` lets the next one go. */
export interface Turn {
  /** 1-based: when it was sent among the batch. */
  position: number;
  /** 1-based: when it arrived among the batch. */
  arrived: number;
  size: number;
  done(): void;
}

interface Held {
  arrived: number;
  grant: (turn: Turn) => void;
}

interface Batch {
  held: Held[];
  timer: NodeJS.Timeout;
}

/**
 * Holds attempts per registration until `window` of them wait (or `maxWaitMs` passed since the
 * first), then lets them go newest first, one at a time: the next is forwarded only when the
 * previous one's answer came, so the receiver sees them in exactly that order.
 */
export class Reorderer {
  private readonly batches = new Map<string, Batch>();

  hold(key: string, window: number, maxWaitMs: number): Promise<Turn> {
    return new Promise<Turn>((grant) => {
      const batch = this.batches.get(key) ?? this.open(key, maxWaitMs);
      batch.held.push({ arrived: batch.held.length + 1, grant });
      if (batch.held.length >= window) void this.release(key);
    });
  }

  /** Lets every held attempt go (the sandbox is closing). */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.batches.keys()].map((key) => this.release(key)));
  }

  private open(key: string, maxWaitMs: number): Batch {
    const batch: Batch = { held: [], timer: setTimeout(() => void this.release(key), maxWaitMs) };
    this.batches.set(key, batch);
    return batch;
  }

  private async release(key: string): Promise<void> {
    const batch = this.batches.get(key);
    if (batch === undefined) return;
    this.batches.delete(key);
    clearTimeout(batch.timer);
    const newestFirst = [...batch.held].reverse();
    for (const [index, held] of newestFirst.entries()) {
      await new Promise<void>((done) => held.grant({ position: index + 1, arrived: held.arrived, size: newestFirst.length, done }));
    }
  }
}
