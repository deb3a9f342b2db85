/**
 * Why a long-running command (`listen`, `dispatcher run`, `demo`) is asked to stop: Ctrl-C, what
 * service managers send, or the reader of its output gone (`acct-webhook … | head -1`).
 */
export type StopReason = 'SIGINT' | 'SIGTERM' | 'closed_output';

/**
 * Requests to stop, as a command waits for them. The process binds them to its signals and its
 * output pipes (see signals.ts); a test makes its own and calls {@link StopRequests.request}.
 */
export class StopRequests {
  private readonly waiting = new Set<(reason: StopReason) => void>();

  /**
   * Calls `handler` on the first request after this call, once. Returns the unsubscribe, for a
   * command that ends on its own first.
   */
  onStop(handler: (reason: StopReason) => void): () => void {
    const unsubscribe = (): void => {
      if (this.waiting.delete(once) && this.waiting.size === 0) this.lastUnsubscribed();
    };
    const once = (reason: StopReason): void => {
      unsubscribe();
      handler(reason);
    };
    if (this.waiting.size === 0) this.firstSubscribed();
    this.waiting.add(once);
    return unsubscribe;
  }

  /** Resolves with the first request after this call. */
  wait(): Promise<StopReason> {
    return new Promise((resolve) => this.onStop(resolve));
  }

  /** Asks every command that waits to stop; false when none does. */
  request(reason: StopReason): boolean {
    const handlers = [...this.waiting];
    for (const handler of handlers) handler(reason);
    return handlers.length > 0;
  }

  /** For a subclass that listens somewhere only while a command waits. */
  protected firstSubscribed(): void {}

  protected lastUnsubscribed(): void {}
}

/** How a person knows the reason: Ctrl-C for SIGINT. */
export function stopReasonName(reason: StopReason): string {
  if (reason === 'SIGINT') return 'Ctrl-C';
  return reason === 'closed_output' ? 'Output closed' : reason;
}
