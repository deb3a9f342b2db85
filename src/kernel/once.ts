/**
 * `task` run at most once successfully: concurrent callers share the run in progress, later
 * callers get the settled success. A failure is not kept — the database may be back on the next
 * call — so the next caller starts a new run.
 */
export function onceSucceeded(task: () => Promise<void>): () => Promise<void> {
  let run: Promise<void> | null = null;
  return () => {
    run ??= task().catch((error: unknown) => {
      run = null;
      throw error;
    });
    return run;
  };
}
