/**
 * Group commit for a synchronous database: work submitted during one event-loop turn runs in a
 * single transaction, so many small writes share one commit. Each submitter gets its own result
 * or error, and only after the transaction has committed: a resolved promise means stored.
 */
export class GroupCommit<Input, Output> {
  private queue: { input: Input; resolve: (output: Output) => void; reject: (error: Error) => void }[] = [];
  private scheduled = false;

  /**
   * @param transaction runs `work` inside one transaction and commits it (throws if the commit fails)
   * @param apply one unit of work; it must run in a savepoint of its own, so that its failure
   *   undoes only its own writes
   */
  constructor(
    private readonly transaction: (work: () => void) => void,
    private readonly apply: (input: Input) => Output,
  ) {}

  submit(input: Input): Promise<Output> {
    return new Promise((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    this.scheduled = false;
    const outcomes: ({ ok: true; value: Output } | { ok: false; error: Error })[] = [];
    try {
      this.transaction(() => {
        for (const { input } of batch) {
          try {
            outcomes.push({ ok: true, value: this.apply(input) });
          } catch (error) {
            outcomes.push({ ok: false, error: asError(error) });
          }
        }
      });
    } catch (error) {
      // The commit itself failed: nothing of this batch is stored.
      for (const item of batch) item.reject(asError(error));
      return;
    }
    batch.forEach((item, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
