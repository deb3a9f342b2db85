/*
 * What catch-up keeps in the receiver's store (`store.catchUp`): a checkpoint per feed read
 * (where a restarted catch-up resumes), and, for the reconciliation report, where a list of event
 * ids stands in the store, read without claiming anything.
 */

/**
 * Where a catch-up stopped: the events feed's cursor after the last event it settled, and that
 * event. Times in ms since the epoch.
 */
export interface CatchUpCheckpoint {
  /** The checkpoint's name (`'default'` unless the catch-up was given another). */
  name: string;
  /** The feed's `next_cursor` after `last_event_id`: the next read starts after that event. */
  cursor: string;
  /** The last event settled before the checkpoint (handled, duplicate, stale or quarantined). */
  last_event_id: string | null;
  /** That event's `created`. */
  last_event_created: number | null;
  /** When the checkpoint was written (the receiver's clock). */
  updated_at: number;
}

/**
 * Where an event id stands in the receiving store: `handled` (its handlers succeeded, directly or
 * through the inbox, or the ordering guard skipped it as stale), `pending` (in the inbox waiting
 * or running, or a direct-mode claim still leased), `failed` (an inbox event that is dead, or a
 * direct-mode claim given back after its handlers failed), `quarantined` (kept as invalid or of
 * an unknown type). An id the store does not know has no state: never received.
 */
export type ReceivedState = 'handled' | 'pending' | 'failed' | 'quarantined';

/** Every state, the strongest first: an id known in several places takes the first that applies. */
export const RECEIVED_STATES: readonly ReceivedState[] = ['handled', 'pending', 'failed', 'quarantined'];

/** The most ids one `receivedStates` call takes (a feed page is at most 100). */
export const MAX_STATE_LOOKUP = 500;

/** Catch-up's part of an idempotency store; `sqliteStore`, `postgresStore` and `memoryStore` offer it. */
export interface CatchUpStore {
  /** The checkpoint of that name, if one was saved. */
  checkpoint(name: string): Promise<CatchUpCheckpoint | undefined>;
  /** Saves (or replaces) the checkpoint of `checkpoint.name`. */
  saveCheckpoint(checkpoint: CatchUpCheckpoint): Promise<void>;
  /** Deletes the checkpoint of that name; false when there was none. */
  deleteCheckpoint(name: string): Promise<boolean>;
  /**
   * Where each of these event ids stands (at most {@link MAX_STATE_LOOKUP}); ids the store does
   * not know are left out. `now` tells a live direct-mode lease (`pending`) from one given back
   * (`failed`). Claims nothing, writes nothing.
   */
  receivedStates(eventIds: readonly string[], now: number): Promise<Map<string, ReceivedState>>;
}

/** The strongest of the states found for one id (see {@link RECEIVED_STATES}). */
export function strongestState(states: Iterable<ReceivedState>): ReceivedState | undefined {
  let best: ReceivedState | undefined;
  for (const state of states) if (best === undefined || RECEIVED_STATES.indexOf(state) < RECEIVED_STATES.indexOf(best)) best = state;
  return best;
}

/** A direct-mode record's state: completed, or a claim still leased, or one given back. */
export function recordState(state: 'processing' | 'completed', leaseUntil: number, now: number): ReceivedState {
  if (state === 'completed') return 'handled';
  return leaseUntil > now ? 'pending' : 'failed';
}

/** An inbox event's state. */
export function inboxState(status: 'pending' | 'processing' | 'done' | 'dead'): ReceivedState {
  if (status === 'done') return 'handled';
  return status === 'dead' ? 'failed' : 'pending';
}

/** Adds a state found for an id, keeping the strongest. */
export function mergeState(states: Map<string, ReceivedState>, eventId: string, state: ReceivedState): void {
  const known = states.get(eventId);
  states.set(eventId, known === undefined ? state : strongestState([known, state])!);
}
