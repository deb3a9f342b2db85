/**
 * How many times in a row a batch's own follow-ups are flushed before the queue waits for the
 * next turn: enough for a claim's handlers to complete in the same turn, few enough that a chain
 * of work that keeps pushing cannot keep the event loop from its I/O.
 * @default 4
 */
export const FOLLOW_UP_FLUSHES = 4;

/**
 * What is pushed during one turn of the event loop, handed to `flush` together once the turn's
 * I/O callbacks have run (setImmediate): the basis of group commit, where the deliveries that
 * arrived together share one transaction or one statement.
 *
 * A flush that settles its items at once (SQLite's, synchronous) starts work that often pushes
 * again within the same microtask drain: the handlers of fifty claimed events run and complete.
 * Waiting for the next turn for those would add a whole turn of latency to every request (and
 * leave the server idle between the load generator's bursts), so they are flushed together as
 * soon as the drain is over: a microtask queued after the batch's promises schedules a tick, and
 * Node runs ticks only once the microtask queue is empty, that is after every handler that could
 * finish without I/O has pushed its completion.
 */
export class TurnQueue<T> {
  private queue: T[] = [];
  private scheduled = false;
  private followUp = false;
  private followUps = 0;

  constructor(private readonly flush: (batch: T[]) => void) {}

  push(item: T): void {
    this.queue.push(item);
    if (this.scheduled || this.followUp) return;
    this.scheduled = true;
    setImmediate(this.run);
  }

  private readonly run = (): void => {
    this.scheduled = false;
    this.followUps = 0;
    this.take();
  };

  private take(): void {
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    if (this.followUps < FOLLOW_UP_FLUSHES) {
      this.followUps++;
      this.followUp = true;
      queueMicrotask(this.afterDrain);
    }
    this.flush(batch);
  }

  private readonly afterDrain = (): void => process.nextTick(this.sweep);

  private readonly sweep = (): void => {
    this.followUp = false;
    // A push during the drain found `followUp` set and scheduled nothing: it is taken here.
    if (this.queue.length > 0 && !this.scheduled) this.take();
  };
}
