import { z } from 'zod';
import type { SqliteConnection } from '../stores/sqlite/drivers.js';

/**
 * What the sandbox does to the deliveries of one registration, on the way from the Dispatcher to
 * the receiver; every fault it injects is recorded (`sandbox_faults`) and shown with the
 * delivery's attempts.
 */
export interface Faults {
  /** Every attempt reaches the receiver twice (the same bytes, the same signature). @default false */
  duplicate: boolean;
  /**
   * Attempts are held until `window` of them are waiting (or `max_wait_ms` passed since the
   * first), then sent newest first, one after the other. @default null
   */
  out_of_order: { window: number; max_wait_ms: number } | null;
  /** Each attempt waits this long before it is forwarded. @default 0 */
  delay_ms: number;
  /**
   * The first n attempts of each delivery reach the receiver, but its answer is withheld until
   * the Dispatcher gives up waiting (its timeout): the platform sees no answer and retries.
   * @default 0
   */
  timeout_first_attempts: number;
  /** The first n attempts of each delivery never reach the receiver: the Dispatcher gets 503. @default 0 */
  drop_first_attempts: number;
}

/** Faults as the API and the `faults` option take them: what is left out is off. */
export type FaultsInput = Partial<Omit<Faults, 'out_of_order'>> & {
  out_of_order?: { window: number; max_wait_ms?: number } | null;
};

/** Held attempts wait at most this long for their window to fill. */
export const DEFAULT_REORDER_WAIT_MS = 1_000;
const MAX_ATTEMPTS = 7;

const count = (max: number) => z.int({ error: `must be a whole number from 0 to ${max}` }).min(0, { error: `must be a whole number from 0 to ${max}` }).max(max, { error: `must be a whole number from 0 to ${max}` });

/** The body of `PUT /v1/sandbox/webhooks/{id}/faults` (omitted fields are off) and the `faults` option. */
export const faultsInput = z.strictObject({
  duplicate: z.boolean({ error: 'must be true or false' }).default(false),
  out_of_order: z
    .strictObject({ window: z.int().min(2, { error: 'must be from 2 to 20' }).max(20, { error: 'must be from 2 to 20' }), max_wait_ms: count(30_000).default(DEFAULT_REORDER_WAIT_MS) })
    .nullable()
    .default(null),
  delay_ms: count(60_000).default(0),
  timeout_first_attempts: count(MAX_ATTEMPTS).default(0),
  drop_first_attempts: count(MAX_ATTEMPTS).default(0),
});

/** The kinds of injected faults in the log. */
export type FaultKind = 'dropped' | 'delayed' | 'reordered' | 'duplicated' | 'answer_withheld';

/** One injected fault, as the deliveries view shows it. */
export interface FaultRecord {
  kind: FaultKind;
  attempt_number: number;
  at: string;
  [detail: string]: unknown;
}

/** `sandbox_faults`: the log of injected faults, by registration and event. */
export class FaultLog {
  constructor(private readonly db: SqliteConnection) {}

  record(webhookId: string, eventId: string, attemptNumber: number, kind: FaultKind, at: number, detail: Record<string, unknown> = {}): void {
    this.db
      .prepare('INSERT INTO sandbox_faults (webhook_id, event_id, attempt_number, kind, detail, at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(webhookId, eventId, attemptNumber, kind, JSON.stringify(detail), at);
  }

  /** The faults injected into one delivery, in the order they happened. */
  of(webhookId: string, eventId: string): FaultRecord[] {
    const rows = this.db.prepare('SELECT kind, attempt_number, detail, at FROM sandbox_faults WHERE webhook_id = ? AND event_id = ? ORDER BY seq').all(webhookId, eventId) as {
      kind: FaultKind;
      attempt_number: number;
      detail: string;
      at: number;
    }[];
    return rows.map((row) => ({ kind: row.kind, attempt_number: row.attempt_number, at: new Date(row.at).toISOString(), ...(JSON.parse(row.detail) as Record<string, unknown>) }));
  }
}
