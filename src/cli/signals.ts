import { StopRequests } from './stop-requests.js';

/** The signals that end a long-running command gracefully: Ctrl-C, and what service managers send. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Stop requests from the process's signals. Only while a command waits for one are the signals
 * taken over (the process would otherwise end at once); after the first, the listeners are gone,
 * so a second Ctrl-C ends the process the usual way.
 */
export class ProcessStopRequests extends StopRequests {
  private readonly listeners = STOP_SIGNALS.map((signal) => [signal, () => void this.request(signal)] as const);

  protected override firstSubscribed(): void {
    for (const [signal, listener] of this.listeners) process.on(signal, listener);
  }

  protected override lastUnsubscribed(): void {
    for (const [signal, listener] of this.listeners) process.off(signal, listener);
  }
}
