/**
 * What is pushed during one turn of the event loop, handed to `flush` together once the turn's
 * I/O callbacks have run (setImmediate): the basis of group commit, where the deliveries that
 * arrived together share one transaction or one statement.
 */
export class TurnQueue<T> {
  private queue: T[] = [];
  private scheduled = false;

  constructor(private readonly flush: (batch: T[]) => void) {}

  push(item: T): void {
    this.queue.push(item);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.run);
  }

  private readonly run = (): void => {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    this.flush(batch);
  };
}
