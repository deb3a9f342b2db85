import type { WebhookEvent } from '../events/schemas.js';
import type { Logger } from '../logging/logger.js';

/**
 * What the receiver did with a delivery:
 * - `handled`: the handlers ran and succeeded (200);
 * - `duplicate`: handled (or queued) before, the handlers did not run again (200);
 * - `queued`: inbox mode stored the event; the handlers run in the background (200);
 * - `caught_up`: read from the platform's events feed by `receiver.catchUp()` and handled (or
 *   queued, in inbox mode) now; its other outcomes keep their kind, all with `via: 'catch_up'`;
 * - `stale`: the ordering guard skipped it, a newer event of its object was handled before (200);
 * - `unknown_event_type`: authentic, of a type this version does not know; acknowledged and kept (200);
 * - `in_progress`: the same event is being handled by another delivery right now (409);
 * - `quarantined`: authentic but invalid; kept for reprocessing and answered 422;
 * - `rejected`: refused before any handler ran (bad signature or timestamp, wrong method, body too large …);
 * - `handler_failed` / `handler_timeout`: a handler threw or ran past its budget (500 / 503);
 * - `error`: the store or the receiver itself failed (503 / 500).
 */
export type OutcomeKind =
  | 'handled'
  | 'duplicate'
  | 'queued'
  | 'caught_up'
  | 'stale'
  | 'unknown_event_type'
  | 'in_progress'
  | 'quarantined'
  | 'rejected'
  | 'handler_failed'
  | 'handler_timeout'
  | 'error';

/**
 * One delivery's report, given to the `onOutcome` hook and written as the one log line per
 * delivery. It never holds the secret or the signature.
 */
export interface ReceiveOutcome {
  outcome: OutcomeKind;
  /** The HTTP status answered. */
  status: number;
  /** The error code of a refusal or failure (`SIGNATURE_MISMATCH`, `HANDLER_FAILED` …); absent for 200s. */
  code?: string;
  /**
   * True when the signature was verified (always true for a webhook once an event id is known);
   * false for an event catch-up read from the events feed, which carries no signature.
   */
  verified: boolean;
  /** `'catch_up'` for an event read from the platform's events feed; absent for a webhook delivery. */
  via?: 'catch_up';
  eventId?: string;
  type?: string;
  correlationId?: string;
  /** True when the event was handled before and the handlers did not run again. */
  duplicate: boolean;
  /** Ordering guard: true when a newer event of the same object was handled before this one. */
  stale?: boolean;
  /** What the handlers returned, in the order they were registered, when they ran and succeeded. */
  results?: readonly unknown[];
  /** Why a request was refused or quarantined, in words (never a secret). */
  reason?: string;
  /** What a handler threw, or why the store or the receiver failed. */
  error?: unknown;
  /** From the start of `receive()` to the answer. */
  durationMs: number;
  /** When the delivery arrived (the receiver's clock). */
  receivedAt: Date;
  /** The body bytes as received (empty when the body could not be read); made when first read. */
  readonly rawBody: Buffer;
}

/** The parts of an outcome that the receiver's steps decide; the rest is filled in once. */
export type OutcomeFields = Omit<ReceiveOutcome, 'status' | 'verified' | 'duplicate' | 'durationMs' | 'receivedAt' | 'rawBody'> & {
  verified?: boolean;
  duplicate?: boolean;
};

/** The event's part of an outcome: its id, type and correlation id. */
export function aboutEvent(event: WebhookEvent): Pick<OutcomeFields, 'eventId' | 'type' | 'correlationId'> {
  return { eventId: event.id, type: event.type, correlationId: event.correlation_id };
}

/** The message of the one log line per delivery. */
export const DELIVERY_LOG_MESSAGE = 'webhook delivery';

/**
 * Writes an outcome as the delivery's log line: info for 2xx, warn for 4xx, error for 5xx (and
 * for an unknown event type, warn: someone should upgrade).
 */
export function logOutcome(logger: Logger, outcome: ReceiveOutcome): void {
  const line: Record<string, unknown> = { outcome: outcome.outcome, status: outcome.status, durationMs: outcome.durationMs };
  if (outcome.code !== undefined) line.code = outcome.code;
  if (outcome.eventId !== undefined) line.eventId = outcome.eventId;
  if (outcome.type !== undefined) line.type = outcome.type;
  if (outcome.correlationId !== undefined) line.correlationId = outcome.correlationId;
  if (outcome.stale) line.stale = true;
  if (outcome.reason !== undefined) line.reason = outcome.reason;
  if (outcome.status >= 500 && outcome.error !== undefined) line.err = outcome.error;
  if (outcome.status >= 500) logger.error(line, DELIVERY_LOG_MESSAGE);
  else if (outcome.status >= 400 || outcome.outcome === 'unknown_event_type') logger.warn(line, DELIVERY_LOG_MESSAGE);
  else logger.info(line, DELIVERY_LOG_MESSAGE);
}
