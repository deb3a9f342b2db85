/**
 * Runs `work` and keeps what it throws from the caller: it goes to `onError`, whose own throw is
 * dropped. For reporting (log lines, hooks), which must never change an answer or an attempt.
 */
export function contained(work: () => void, onError: (error: unknown) => void = () => undefined): void {
  try {
    work();
  } catch (error) {
    try {
      onError(error);
    } catch {
      // A logger that throws while reporting a failure has nowhere left to report to.
    }
  }
}
