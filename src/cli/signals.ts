/** The signals that end a long-running command gracefully: Ctrl-C, and what service managers send. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/**
 * Calls `handler` on the first stop signal, instead of the default (the process ending at once),
 * so the command can finish what is in flight and close its files. Returns the unsubscribe; after
 * the first signal the listeners are gone, so a second Ctrl-C ends the process the usual way.
 */
export function onStopSignal(handler: (signal: StopSignal) => void): () => void {
  const listeners = STOP_SIGNALS.map((signal) => [signal, () => {
    unsubscribe();
    handler(signal);
  }] as const);
  const unsubscribe = (): void => {
    for (const [signal, listener] of listeners) process.off(signal, listener);
  };
  for (const [signal, listener] of listeners) process.on(signal, listener);
  return unsubscribe;
}

/** Resolves with the first stop signal (see {@link onStopSignal}). */
export function waitForStopSignal(): Promise<StopSignal> {
  return new Promise((resolve) => onStopSignal(resolve));
}

/** How a person knows the signal: Ctrl-C for SIGINT. */
export function signalName(signal: StopSignal): string {
  return signal === 'SIGINT' ? 'Ctrl-C' : signal;
}
