import { AcctWebhookError, type ErrorDetails } from '../kernel/errors.js';

export const RECEIVER_ERROR_CODES = [
  'METHOD_NOT_ALLOWED',
  'NOT_FOUND',
  'PAYLOAD_TOO_LARGE',
  'BODY_TIMEOUT',
  'BODY_ALREADY_PARSED',
  'EVENT_IN_PROGRESS',
  'HANDLER_FAILED',
  'HANDLER_TIMEOUT',
  'STORE_UNAVAILABLE',
  'INTERNAL_ERROR',
  'NOT_RETRYABLE',
  'INBOX_CLOSED',
  'DRAIN_TIMEOUT',
  'UNKNOWN_BUSINESS',
  'SECRET_UNAVAILABLE',
  'NO_CHECKPOINT',
  'CATCH_UP_UNSUPPORTED',
] as const;
/** The codes of a {@link ReceiverError}: the receiver's answers besides verification and validation. */
export type ReceiverErrorCode = (typeof RECEIVER_ERROR_CODES)[number];

/** Why the receiver did not acknowledge a delivery (besides verification and validation). */
export class ReceiverError extends AcctWebhookError<ReceiverErrorCode> {}

/**
 * One or more handlers of an event failed. Like `AggregateError`, `errors` holds every failure
 * (several handlers may run for one event); the claim was released so the sender's retry runs
 * the handlers again.
 */
export class WebhookHandlerError extends ReceiverError {
  readonly errors: readonly unknown[];

  constructor(errors: readonly unknown[], details: ErrorDetails = {}) {
    // The first failure is the cause, so loggers print "A handler failed: <its message>".
    const count = errors.length === 1 ? 'A handler' : `${errors.length} handlers`;
    super('HANDLER_FAILED', `${count} failed`, { failures: errors.length, ...details }, { cause: errors[0] });
    this.errors = errors;
  }
}
