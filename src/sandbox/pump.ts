import type { Dispatcher } from '../dispatcher/dispatcher.js';

/**
 * Runs the Dispatcher's due attempts in the background when events are emitted or the clock
 * moves. Each run is its own `runDue()`, so a delivery held open (a fault, a slow receiver)
 * never keeps the next one from starting. `settle()` waits for every run, for tests and for
 * clock advances.
 */
export class DeliveryPump {
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly onError: (error: unknown) => void,
  ) {}

  kick(): void {
    const run: Promise<unknown> = this.dispatcher.runDue().catch(this.onError).finally(() => this.running.delete(run));
    this.running.add(run);
  }

  /** Resolves when no run is in flight. */
  async settle(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }
}
