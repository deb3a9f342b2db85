import { AcctWebhookError, type ErrorDetails } from '../kernel/errors.js';

/** Every code a {@link DispatcherError} carries. Match on the code, never on the message. */
export const DISPATCHER_ERROR_CODES = [
  'INVALID_URL',
  'UNKNOWN_EVENT_TYPE',
  'FORBIDDEN_HEADER',
  'VALIDATION_ERROR',
  'NOT_FOUND',
  'EVENT_ID_CONFLICT',
  'RATE_LIMIT_EXCEEDED',
  'DISPATCHER_CLOSED',
  'PAYLOAD_NOT_KEPT',
  'RETENTION_UNSUPPORTED',
  'EVENTS_EXPIRED',
  'EVENTS_UNSUPPORTED',
  'REPLAY_TOO_LARGE',
  'REPLAY_UNSUPPORTED',
] as const;
/** The codes of a {@link DispatcherError}. */
export type DispatcherErrorCode = (typeof DISPATCHER_ERROR_CODES)[number];

/** An operation of the dispatcher that was refused; `details.field` names the input at fault. */
export class DispatcherError extends AcctWebhookError<DispatcherErrorCode> {}

/** Why a webhook URL is refused; `details.reason` of an {@link InvalidUrlError}. */
export type UrlRefusalReason =
  | 'invalid_url'
  | 'unsupported_protocol'
  | 'https_required'
  | 'credentials_in_url'
  | 'unusual_ip_notation'
  | 'unresolvable_host'
  | 'unspecified_address'
  | 'loopback_address'
  | 'private_address'
  | 'link_local_address'
  | 'shared_address'
  | 'multicast_address'
  | 'reserved_address';

/**
 * A webhook URL the dispatcher will not send to: `details.field` is `'url'`, `details.reason` a
 * {@link UrlRefusalReason}, `details.address` the refused address when one was resolved.
 */
export class InvalidUrlError extends DispatcherError {
  declare readonly details: ErrorDetails & { field: 'url'; reason: UrlRefusalReason };

  constructor(reason: UrlRefusalReason, message: string, details: ErrorDetails = {}) {
    super('INVALID_URL', message, { field: 'url', reason, ...details });
  }
}

/** A webhook, delivery or event id that does not exist (or a webhook that was deleted). */
export class NotFoundError extends DispatcherError {
  constructor(resource: 'webhook' | 'delivery' | 'event', id: string) {
    super('NOT_FOUND', `No ${resource} with id "${id}"`, { resource, id });
  }
}

/**
 * More manual retries than the platform allows (50 per 15 minutes). `details` has the platform's
 * fields: `retry_after` (seconds), `limit`, `window`, `reset_at`.
 */
export class RateLimitError extends DispatcherError {
  declare readonly details: ErrorDetails & { retry_after: number; limit: number; window: string; reset_at: string };

  constructor(details: { retry_after: number; limit: number; window: string; reset_at: string }) {
    super('RATE_LIMIT_EXCEEDED', `At most ${details.limit} manual retries per ${details.window}; retry in ${details.retry_after} s`, details);
  }
}

