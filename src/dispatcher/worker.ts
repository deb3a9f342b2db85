import { InFlight } from './in-flight.js';

export interface WorkerOptions<Job> {
  /** Leases up to `limit` due jobs. */
  claim: (limit: number) => Promise<Job[]>;
  /** When the earliest job is due (ms since the epoch), or null. */
  nextDueAt: () => Promise<number | null>;
  /** Makes and records one attempt. */
  process: (job: Job) => Promise<unknown>;
  onError: (error: unknown) => void;
  clock: () => number;
  concurrency: number;
  /** Longest sleep between looks at the database. */
  pollIntervalMs: number;
  /** Where its attempts are counted, shared with other work that `stop()` waits for. @default a set of its own */
  inFlight?: InFlight | undefined;
}

/**
 * The delivery loop. It keeps nothing per pending delivery in memory: it asks the storage for at
 * most `concurrency` due jobs at a time and for the earliest due time, and sleeps until then
 * (capped, so work saved by other processes is seen). `wake()` cuts a sleep short.
 */
export class Worker<Job> {
  private readonly inFlight: InFlight;
  private running = false;
  private loopDone: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  private woken = false;

  constructor(private readonly options: WorkerOptions<Job>) {
    this.inFlight = options.inFlight ?? new InFlight(options.onError);
    // A finished attempt frees a slot: the loop claims again.
    this.inFlight.onSettled(() => this.wake());
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  /** No new claims; resolves when the loop has ended and every attempt in flight is recorded. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loopDone;
    this.loopDone = null;
    await this.drain();
  }

  /** Ends the current sleep (new work, or a free slot). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Processes every job due now, `concurrency` at a time, until none is due. Returns how many ran. */
  async runDue(): Promise<number> {
    let total = 0;
    for (;;) {
      const jobs = await this.options.claim(this.options.concurrency);
      if (jobs.length === 0) return total;
      total += jobs.length;
      // Awaited here so that runDue rejects on an error; tracked so that stop() waits for them too.
      await Promise.all(jobs.map((job) => this.launch(job)));
    }
  }

  /** Runs `work` as an attempt in flight: stop() and drain() wait for it. */
  track<T>(work: Promise<T>): Promise<T> {
    return this.inFlight.track(work);
  }

  /** Resolves when nothing is in flight. */
  drain(): Promise<void> {
    return this.inFlight.drain();
  }

  private launch(job: Job): Promise<unknown> {
    return this.track(this.options.process(job));
  }

  private async loop(): Promise<void> {
    // Every store reports as due only what a claim can take (disabled webhooks' deliveries are
    // left out on both backends), yet a claim may leave a delivery that is due: its webhook is at
    // its cap of attempts in flight or over its rate limit, or, on PostgreSQL, another transaction
    // holds the row locked (SKIP LOCKED), which nextDueAt reads all the same. A claim that took
    // some but not all it could waits until an attempt finishes (or a poll interval), and so does
    // a second empty claim in a row with work due, instead of asking again at once: the loop
    // cannot spin.
    let emptyAndDue = false;
    while (this.running) {
      this.woken = false;
      const free = this.options.concurrency - this.inFlight.size;
      if (free <= 0) {
        await this.sleep(this.options.pollIntervalMs);
        continue;
      }
      const claimed = await this.claimSafely(free);
      if (claimed === null || !this.running) continue;
      if (claimed === free) continue;
      if (claimed > 0) {
        // The claim took all it could now (the rest is not due, or its webhooks are at their
        // caps or rate limits): the attempts just started wake the loop when they finish.
        emptyAndDue = false;
        await this.sleep(this.options.pollIntervalMs);
        continue;
      }
      const delay = await this.delayUntilNextDue();
      if (delay > 0) {
        emptyAndDue = false;
        await this.sleep(delay);
      } else if (emptyAndDue) {
        await this.sleep(this.options.pollIntervalMs);
      } else {
        emptyAndDue = true;
      }
    }
  }

  /** Claims and launches; null after an error (logged, then a pause). */
  private async claimSafely(limit: number): Promise<number | null> {
    try {
      const jobs = await this.options.claim(limit);
      for (const job of jobs) void this.launch(job).catch(() => undefined);
      return jobs.length;
    } catch (error) {
      this.options.onError(error);
      await this.sleep(this.options.pollIntervalMs);
      return null;
    }
  }

  private async delayUntilNextDue(): Promise<number> {
    try {
      const next = await this.options.nextDueAt();
      if (next === null) return this.options.pollIntervalMs;
      return Math.min(Math.max(next - this.options.clock(), 0), this.options.pollIntervalMs);
    } catch (error) {
      this.options.onError(error);
      return this.options.pollIntervalMs;
    }
  }

  private async sleep(ms: number): Promise<void> {
    if (this.woken || !this.running) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}
