/**
 * The attempts in flight (worker runs, manual retries, alert deliveries): what `stop()` and
 * `close()` wait for. Made before everything that starts work, so that none of them needs the
 * worker to exist; the worker listens to it to claim again when a slot frees.
 */
export class InFlight {
  private readonly running = new Set<Promise<void>>();
  private readonly listeners: (() => void)[] = [];

  /** `onError`: what a tracked piece of work rejected with. */
  constructor(private readonly onError: (error: unknown) => void) {}

  /** How many are in flight. */
  get size(): number {
    return this.running.size;
  }

  /** Calls `listener` each time one is over. */
  onSettled(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Counts `work` as in flight until it settles; returns it unchanged. */
  track<T>(work: Promise<T>): Promise<T> {
    const settled: Promise<void> = work.then(
      () => this.settled(settled),
      (error: unknown) => {
        this.onError(error);
        this.settled(settled);
      },
    );
    this.running.add(settled);
    return work;
  }

  /** Resolves when nothing is in flight. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }

  private settled(settled: Promise<void>): void {
    this.running.delete(settled);
    for (const listener of this.listeners) listener();
  }
}
