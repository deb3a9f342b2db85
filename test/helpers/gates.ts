/**
 * Handler calls that stop until the test lets them go: concurrency is tested by holding work
 * where it is and looking, never by sleeping and hoping.
 */
export class HeldCalls<T> {
  private readonly calls: { value: T; release: () => void }[] = [];
  private waiters: { count: number; resolve: () => void }[] = [];
  private open = false;
  /** Calls in progress now, and the most there ever were at once. */
  running = 0;
  most = 0;

  /** Called by the handler: counts it in, holds it until released, counts it out. */
  async hold(value: T): Promise<void> {
    this.most = Math.max(this.most, ++this.running);
    await new Promise<void>((release) => {
      this.calls.push({ value, release });
      if (this.open) release();
      this.waiters = this.waiters.filter((waiter) => (this.calls.length >= waiter.count ? (waiter.resolve(), false) : true));
    });
    this.running--;
  }

  /** Resolves once `count` calls in all have arrived. */
  arrived(count: number): Promise<void> {
    if (this.calls.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  /** What the calls were made with, in arrival order. */
  get values(): T[] {
    return this.calls.map((call) => call.value);
  }

  /** Lets the `index`th call (from 0) finish. */
  release(index: number): void {
    this.calls[index]!.release();
  }

  /** Lets every call that arrived finish, and every later one pass at once. */
  releaseAll(): void {
    this.open = true;
    for (const call of this.calls) call.release();
  }
}
