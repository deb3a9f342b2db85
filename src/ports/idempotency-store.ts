import type { CatchUpStore } from './catch-up.js';
import type { InboxStore } from './inbox.js';
import type { QuarantinedEvent, QuarantineReason } from './quarantine-fields.js';
import type { StoreAtomicEffect } from './atomic-effect.js';
import type { CompleteOptions, ObjectVersions } from './versions.js';

/**
 * The idempotency store: what makes a redelivered event run its handlers once. Not a set of
 * seen ids but a small state machine per event id:
 *
 *   (none) --claim--> processing (lease + token) --complete(token)--> completed
 *                        |  release(token) or lease expiry
 *                        v
 *                  claimable again (a takeover issues a new token)
 *
 * A second delivery while an event is processing gets `in_progress` (the receiver answers 409),
 * never an early success: if the first attempt then failed, the event would be lost.
 */
export type ClaimResult =
  | { status: 'claimed'; token: string; /** true when an expired or released claim was taken over */ takeover: boolean }
  | { status: 'completed'; completedAt: number }
  | { status: 'in_progress'; leaseExpiresAt: number };

/** The arguments of a claim: the time, the lease to take, the event type (kept for inspection). */
export interface ClaimOptions {
  /** Milliseconds since the epoch. */
  now: number;
  /** How long the claim holds before another delivery may take it over. */
  leaseMs: number;
  /** Stored for inspection only. */
  type?: string;
}

export type { QuarantinedEvent, QuarantineReason } from './quarantine-fields.js';

/** What the receiver hands to `quarantine.put`; `received_at` in ms since the epoch. */
export interface QuarantineInput {
  reason: QuarantineReason;
  event_id: string | null;
  event_type: string | null;
  error_code: string;
  error_message: string;
  raw_body: Buffer;
  received_at: number;
}

/** Authentic payloads the receiver could not process, kept with their bytes: `receiver.store.quarantine`. */
export interface QuarantineStore {
  /** Stores a payload; the same payload delivered again only bumps `deliveries`. */
  put(input: QuarantineInput): Promise<QuarantinedEvent>;
  list(filter?: { reason?: QuarantineReason }): Promise<QuarantinedEvent[]>;
  get(id: string): Promise<QuarantinedEvent | undefined>;
  delete(id: string): Promise<boolean>;
}

/**
 * What makes a redelivered event run its handlers once: `sqliteStore`, `memoryStore` and
 * `postgresStore` implement it; implement it yourself for another database (the contract
 * suites in this repository's tests show what each method must do).
 */
export interface IdempotencyStore {
  /**
   * Resolves when the store is usable (tables created or migrated, connection made); every other
   * method waits for it by itself. Call it at start-up to fail fast. Idempotent.
   */
  ready(): Promise<void>;
  claim(eventId: string, options: ClaimOptions): Promise<ClaimResult>;
  /**
   * Marks the event handled (and, with `options.version`, keeps it as its object's newest when it
   * is). False when the claim was lost (expired and taken over).
   */
  complete(eventId: string, token: string, now: number, options?: CompleteOptions): Promise<boolean>;
  /**
   * Marks the event handled and applies `effects` in the same transaction: the handlers' writes
   * and the completion commit together or not at all, which closes the crash window between a
   * side effect and its completion record. False (and no effect applied) when the claim was lost.
   * Offered by stores that own a transactional database (`sqliteStore`, `postgresStore`); each
   * calls the effects with its own handle (the SQLite database; the PostgreSQL transaction's
   * client, within `options.budgetMs`).
   */
  completeAtomically?(eventId: string, token: string, now: number, effects: readonly StoreAtomicEffect[], options?: AtomicCompleteOptions): Promise<boolean>;
  /** Gives the claim up so the next delivery runs the handlers again. */
  release(eventId: string, token: string): Promise<boolean>;
  /** Deletes completed records older than the retention; returns how many. */
  prune(now: number): Promise<number>;
  readonly quarantine: QuarantineStore;
  /** The newest handled event per object, for the ordering guard (`ordering: true`); offered by the stores of this package. */
  readonly versions?: ObjectVersions;
  /** The durable inbox, for inbox mode (`inbox: true`); offered by the stores of this package. */
  readonly inbox?: InboxStore;
  /** Catch-up's checkpoints and the reconciliation report's lookups (`receiver.catchUp`); offered by the stores of this package. */
  readonly catchUp?: CatchUpStore;
  /** How long completed records are kept, in milliseconds. */
  readonly retentionMs: number;
  close(): Promise<void>;
}

/** How an atomic completion is run. */
export interface AtomicCompleteOptions extends CompleteOptions {
  /**
   * How long asynchronous effects may take, in milliseconds: what is left of the handler budget.
   * A store that awaits its effects (PostgreSQL) rolls back and fails when they take longer.
   */
  budgetMs?: number | undefined;
}

/** The sender retries for 34.6 hours; a dedupe record must outlive that window. */
export const MIN_RETENTION_MS = 35 * 60 * 60 * 1000;
/** @default 30 days */
export const DEFAULT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** Pruning runs at most this often, piggy-backed on claims. */
export const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

/** The options every idempotency store takes. */
export interface StoreOptions {
  /** How long completed records are kept. At least 35 h. @default 30 days */
  retentionMs?: number;
}
