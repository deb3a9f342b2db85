import { AcctWebhookError, type ErrorDetails } from '../kernel/errors.js';
import type { RateLimit } from './rate-limit.js';

/**
 * The codes of the platform's error envelope (its document's error table), the sandbox's
 * `NOT_FOUND` and `INTERNAL_ERROR`, and `INVALID_RESPONSE` for an answer that is not the envelope
 * (a proxy's HTML page). A newer platform may answer a code not listed here; it is passed through.
 */
export const API_ERROR_CODES = [
  'RATE_LIMIT_EXCEEDED',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'VALIDATION_ERROR',
  'NOT_FOUND',
  'CONVERSATION_NOT_FOUND',
  'INVALID_FILE_TYPE',
  'FILE_TOO_LARGE',
  'ANALYSIS_FAILED',
  'MESSAGE_TOO_LONG',
  'INVALID_CONTEXT',
  'INTERNAL_ERROR',
  'INVALID_RESPONSE',
] as const;

/** A code of an {@link ApiError}: one of {@link API_ERROR_CODES}, or a code this version does not know. */
export type ApiErrorCode = (typeof API_ERROR_CODES)[number] | (string & {});

/** Where a refused call went: its method and path (never the key, never the body). */
export interface ApiRequestInfo {
  method: string;
  /** The path after the base URL, e.g. `/v1/webhooks/wh_123`. */
  path: string;
}

/**
 * The API answered with an error: the envelope's `code`, `message` and `details`, the HTTP status,
 * the call it answered and the rate limit the answer reported. Subclasses for the codes a program
 * acts on: {@link ApiUnauthorizedError}, {@link ApiForbiddenError}, {@link ApiNotFoundError},
 * {@link ApiValidationError}, {@link ApiRateLimitError}. Match on `code`, never on the message.
 *
 * @example
 * try { await client.webhooks.delete('wh_123'); } catch (error) {
 *   if (error instanceof ApiError && error.code === 'NOT_FOUND') console.log('already gone');
 * }
 */
export class ApiError extends AcctWebhookError<ApiErrorCode> {
  /** The HTTP status of the answer. */
  readonly status: number;
  /** The method and path of the call. */
  readonly request: ApiRequestInfo;
  /** The X-RateLimit-* headers of the answer; `null` when it carried none. */
  readonly rateLimit: RateLimit | null;

  constructor(code: ApiErrorCode, message: string, details: ErrorDetails, context: { status: number; request: ApiRequestInfo; rateLimit: RateLimit | null }) {
    super(code, message, details);
    this.status = context.status;
    this.request = context.request;
    this.rateLimit = context.rateLimit;
  }
}

/** 401 `UNAUTHORIZED`: the key is missing, malformed, deleted or disabled (`details.hint` says which, when the API tells). */
export class ApiUnauthorizedError extends ApiError {}

/** 403 `FORBIDDEN`: the key may not do this (a foreign resource, a missing scope, a feature not in the plan). */
export class ApiForbiddenError extends ApiError {}

/** 404 `NOT_FOUND` (or the document's `CONVERSATION_NOT_FOUND`): no such resource for this key. */
export class ApiNotFoundError extends ApiError {}

/** 400 or 422 `VALIDATION_ERROR`: the request's data is invalid; `details.field` and `details.reason` say where and why. */
export class ApiValidationError extends ApiError {}

/**
 * 429 `RATE_LIMIT_EXCEEDED`, thrown once the client's retries are spent or the wait the API asks
 * for is longer than `maxRetryAfterMs`. `retryAfterMs` is the wait the answer asked for.
 */
export class ApiRateLimitError extends ApiError {
  /** How long the API asked to wait (Retry-After, else `details.retry_after`), in milliseconds; `null` when it did not say. */
  readonly retryAfterMs: number | null;

  constructor(code: ApiErrorCode, message: string, details: ErrorDetails, context: { status: number; request: ApiRequestInfo; rateLimit: RateLimit | null; retryAfterMs: number | null }) {
    super(code, message, details, context);
    this.retryAfterMs = context.retryAfterMs;
  }
}

/** The codes of an {@link ApiConnectionError}: no answer within `timeoutMs`, or no answer at all (DNS, refused, reset). */
export type ApiConnectionErrorCode = 'TIMEOUT' | 'NETWORK_ERROR';

/**
 * No answer came: the connection failed or the call ran past `timeoutMs` (after the client's
 * retries of an idempotent call). A call that changes state (`create`, `rotateSecret`) is not
 * retried after no answer, since it may have been carried out: look before trying it again.
 */
export class ApiConnectionError extends AcctWebhookError<ApiConnectionErrorCode> {
  /** The method and path of the call. */
  readonly request: ApiRequestInfo;

  constructor(code: ApiConnectionErrorCode, message: string, request: ApiRequestInfo, options?: ErrorOptions) {
    super(code, message, { method: request.method, path: request.path }, options);
    this.request = request;
  }
}

/** The typed error of an answer's envelope. */
export function apiErrorOf(
  status: number,
  envelope: { code: string; message: string; details: ErrorDetails } | null,
  request: ApiRequestInfo,
  rateLimit: RateLimit | null,
  retryAfterMs: number | null,
): ApiError {
  const context = { status, request, rateLimit };
  if (envelope === null) {
    return new ApiError('INVALID_RESPONSE', `${request.method} ${request.path} answered ${status} without the API's error envelope`, { status }, context);
  }
  const { code, message, details } = envelope;
  if (code === 'RATE_LIMIT_EXCEEDED' || status === 429) return new ApiRateLimitError(code, message, details, { ...context, retryAfterMs });
  if (code === 'UNAUTHORIZED' || status === 401) return new ApiUnauthorizedError(code, message, details, context);
  if (code === 'FORBIDDEN' || status === 403) return new ApiForbiddenError(code, message, details, context);
  if (code === 'NOT_FOUND' || code === 'CONVERSATION_NOT_FOUND' || status === 404) return new ApiNotFoundError(code, message, details, context);
  if (code === 'VALIDATION_ERROR') return new ApiValidationError(code, message, details, context);
  return new ApiError(code, message, details, context);
}
