import { onceSucceeded } from '../kernel/once.js';
import type { DispatchStore } from '../ports/dispatch-store.js';
import { DispatcherError } from './errors.js';

/**
 * The dispatcher's way to its store: every use waits for the store's `ready()` (once it
 * succeeded; a failure, the database away, is tried again by the next use) and is refused once
 * the dispatcher is closed.
 */
export class StoreGate {
  private closed = false;
  private readonly ready: () => Promise<void>;

  /** `owned`: made by the dispatcher from `database`, so `close()` closes it; a store passed in stays open. */
  constructor(
    readonly store: DispatchStore,
    readonly owned: boolean,
  ) {
    this.ready = onceSucceeded(() => store.ready());
  }

  /** The store once it is ready. @throws DispatcherError `DISPATCHER_CLOSED` after {@link close} */
  async usable(): Promise<DispatchStore> {
    if (this.closed) throw new DispatcherError('DISPATCHER_CLOSED', 'The dispatcher was closed', {});
    await this.ready();
    return this.store;
  }

  /** Refuses every later use. */
  close(): void {
    this.closed = true;
  }
}
