/**
 * Wake-ups across processes: a store that can tell every worker on the same database "work was
 * just stored" offers this (PostgreSQL: NOTIFY when the insert commits, LISTEN on a connection of
 * its own). A worker that subscribes claims at once instead of at its next poll; the poll stays,
 * so a wake-up that never arrives delays work and loses nothing. SQLite offers none: processes
 * on one file keep polling.
 */
export interface WakeUps {
  /**
   * Calls `onWake` for every notification until the subscription is closed. Resolves once
   * listening; rejects when the first connection cannot be made. A connection lost later is
   * reported through `onConnection` (`lost`, then `restored` once listening again, followed by an
   * `onWake`, as work may have been stored meanwhile) and made again until it works.
   */
  listen(onWake: () => void, onConnection: (change: WakeUpConnectionChange) => void): Promise<WakeUpSubscription>;
}

/** What happened to the listening connection. */
export type WakeUpConnectionChange = { state: 'lost'; error: unknown; retryInMs: number } | { state: 'restored' };

/** A live subscription: close it to stop listening and give the connection back. */
export interface WakeUpSubscription {
  close(): Promise<void>;
}

/** The part of a logger the listener writes to. */
interface WakeUpLog {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

/**
 * A worker's subscription to a store's wake-ups, started and stopped with the worker: each
 * notification calls `wake`; a lost listening connection is logged (warn) and so is its return
 * (info). Without wake-ups (SQLite, memory) it does nothing and the worker polls.
 */
export class WakeUpListener {
  private subscription: Promise<WakeUpSubscription | undefined> | undefined;

  constructor(
    private readonly wakeUps: WakeUps | undefined,
    private readonly wake: () => void,
    private readonly log: WakeUpLog | undefined,
    /** Who listens, for the log lines: 'dispatcher', 'inbox'. */
    private readonly subject: string,
  ) {}

  /** Listens (once); resolves when listening, or when the first try failed and a retry is set. */
  async start(): Promise<void> {
    if (!this.wakeUps || this.subscription) return;
    this.subscription = this.wakeUps
      .listen(this.wake, (change) => {
        if (change.state === 'lost') {
          this.log?.warn(
            { err: change.error, retryInMs: change.retryInMs },
            `The ${this.subject}'s wake-up connection (LISTEN) is lost; polling until it is back`,
          );
        } else {
          this.log?.info({}, `The ${this.subject}'s wake-up connection (LISTEN) is back`);
        }
      })
      .catch(() => undefined);
    await this.subscription;
  }

  /** Stops listening and gives the connection back. */
  async stop(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = undefined;
    await (await subscription)?.close();
  }
}
