import type { CatchUpCheckpoint, ReceivedState } from '../ports/catch-up.js';

/**
 * What one catch-up did. Every event read is counted once, in one of `handled`, `duplicates`,
 * `stale`, `quarantined`, `inProgress` or `failed`.
 */
export interface CatchUpSummary {
  /** Events read from the feed. */
  read: number;
  /**
   * Caught up now: their handlers ran and succeeded (direct mode), or they were stored in the
   * inbox for its worker to run (inbox mode: also counted in `queued`).
   */
  handled: number;
  /** Of `handled`, the events stored in the inbox (inbox mode). */
  queued: number;
  /** Handled before (from a webhook, or an earlier catch-up): their handlers did not run again. */
  duplicates: number;
  /** The ordering guard found a newer event of their object handled before (skipped, or run with `context.stale`). */
  stale: number;
  /** Invalid, or of a type this version does not know: kept in the quarantine. */
  quarantined: number;
  /** Being handled by a webhook delivery at that moment: that delivery runs them; the checkpoint waits. */
  inProgress: number;
  /** Their handlers failed or ran out of time, or the store failed: the next catch-up tries them again. */
  failed: number;
  /** Where the checkpoint stands after the run; null with `checkpoint: false`. */
  checkpoint: CatchUpCheckpoint | null;
  /**
   * The first event that held the checkpoint back (failed, or in progress elsewhere): the next
   * catch-up starts at the page that holds it. Null when every event read was settled.
   */
  heldBy: { eventId: string; type: string; outcome: 'failed' | 'in_progress'; code?: string } | null;
  /** Where the read started: at `since`, or at the stored checkpoint. */
  startedFrom: 'since' | 'checkpoint';
  /** True when `signal` stopped it before the feed's end. */
  aborted: boolean;
  durationMs: number;
}

/** An event the platform has and this receiver has not handled, in the reconciliation report. */
export interface UnhandledEvent {
  id: string;
  type: string;
  /** The event's `created` (ISO 8601). */
  created: string;
  /**
   * `missing`: never received; `pending`: received, its handlers not finished (in the inbox, or a
   * claim still held); `failed`: its handlers failed (a dead inbox event, a released claim);
   * `quarantined`: received but invalid or of an unknown type.
   */
  state: 'missing' | Exclude<ReceivedState, 'handled'>;
}

/** The reconciliation report: for a time range, the feed's events this receiver has not handled, by type. */
export interface ReconcileReport {
  /** The range read (ISO 8601); null where it was open. */
  since: string | null;
  until: string | null;
  /** Events the feed has in the range (of the types asked for). */
  read: number;
  /** Of them, handled here (or skipped as stale by the ordering guard). */
  handled: number;
  /** Of them, not handled here: the length of every list in `byType` together. */
  unhandled: number;
  /** The unhandled events per type, oldest first; types with none are left out. */
  byType: Record<string, UnhandledEvent[]>;
  /** How many unhandled events are in each state. */
  byState: Record<UnhandledEvent['state'], number>;
}
