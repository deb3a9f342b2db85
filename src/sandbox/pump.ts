import type { Dispatcher } from '../platform/node-dispatcher.js';

/**
 * Starts a Dispatcher run (`runDue`) for deliveries the sandbox just queued or that the clock
 * moves. Each run is its own `runDue()`, so a delivery held open (a fault, a slow receiver)
 * never keeps the next one from starting. `settle()` waits for every run, for tests and for
 * clock advances.
 */
export class DeliveryPump {
  private readonly running = new Set<Promise<unknown>>();
  private holds = 0;
  private kickedWhileHeld = false;

  constructor(
    private readonly dispatcher: Pick<Dispatcher, 'runDue'>,
    private readonly onError: (error: unknown) => void,
  ) {}

  kick(): void {
    if (this.holds > 0) {
      this.kickedWhileHeld = true;
      return;
    }
    const run: Promise<unknown> = this.dispatcher.runDue().catch(this.onError).finally(() => this.running.delete(run));
    this.running.add(run);
  }

  /** Resolves when no run is in flight. */
  async settle(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }

  /**
   * Runs `work` (a clock advance) once every run in flight has ended, with no run started beside
   * it: `work` makes the attempts itself, between moves of the clock, so that no attempt is in
   * flight while the clock jumps — a delivery's next attempt comes only after its previous one
   * was answered or timed out. Kicks asked for meanwhile make one run afterwards.
   */
  async alone<T>(work: () => Promise<T>): Promise<T> {
    this.holds += 1;
    try {
      await this.settle();
      return await work();
    } finally {
      this.holds -= 1;
      if (this.holds === 0 && this.kickedWhileHeld) {
        this.kickedWhileHeld = false;
        this.kick();
      }
    }
  }
}
