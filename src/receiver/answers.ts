import type { AcctWebhookError, ErrorBody, VerificationErrorCode } from '../kernel/errors.js';
import { HTTP_BODY_ERROR_STATUS, type HttpBodyErrorCode } from '../http/errors.js';
import type { ReceiverErrorCode } from './errors.js';

/** The receiver's answer, framework-free: adapters turn it into their response type. */
export interface WebhookResponse {
  status: number;
  headers: Record<string, string>;
  body: AcknowledgedBody | ErrorBody;
}

/** The body of a 200 answer: which event was acknowledged, and whether it was a duplicate. */
export interface AcknowledgedBody {
  received: true;
  id: string;
  type: string;
  /** True when the event was handled before; the handlers did not run again. */
  duplicate: boolean;
  /** Set when an authentic event was acknowledged without running handlers. */
  acknowledged?: 'unknown_event_type';
  /** Inbox mode: the event is stored and its handlers run in the background. */
  queued?: true;
  /** Ordering guard: a newer event of the same object was handled before this one. */
  stale?: true;
}

type AnswerCode = VerificationErrorCode | ReceiverErrorCode | HttpBodyErrorCode | 'VALIDATION_ERROR' | 'UNKNOWN_EVENT_TYPE' | 'INVALID_CONFIGURATION';

/** The table of docs/receiver.md#answers, by error code: the status each refusal or failure is answered with. */
const STATUS: Record<AnswerCode, number> = {
  // A body the HTTP edge could not read: 413, 408, 400, and 500 BODY_ALREADY_PARSED.
  ...HTTP_BODY_ERROR_STATUS,
  MISSING_SIGNATURE: 400,
  MALFORMED_SIGNATURE: 400,
  MISSING_TIMESTAMP: 400,
  MALFORMED_TIMESTAMP: 400,
  MISSING_WEBHOOK_ID: 400,
  MALFORMED_WEBHOOK_ID: 400,
  WEBHOOK_ID_MISMATCH: 400,
  TIMESTAMP_TOO_OLD: 401,
  TIMESTAMP_IN_FUTURE: 401,
  SIGNATURE_MISMATCH: 401,
  UNKNOWN_BUSINESS: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  EVENT_IN_PROGRESS: 409,
  NOT_RETRYABLE: 409,
  VALIDATION_ERROR: 422,
  UNKNOWN_EVENT_TYPE: 422,
  HANDLER_FAILED: 500,
  NO_SECRET: 500,
  PAYLOAD_NOT_RAW: 500,
  INVALID_CONFIGURATION: 500,
  INTERNAL_ERROR: 500,
  HANDLER_TIMEOUT: 503,
  STORE_UNAVAILABLE: 503,
  SECRET_UNAVAILABLE: 503,
  INBOX_CLOSED: 503,
  DRAIN_TIMEOUT: 500,
  NO_CHECKPOINT: 500,
  CATCH_UP_UNSUPPORTED: 500,
};

export function statusFor(code: string): number {
  return Object.hasOwn(STATUS, code) ? STATUS[code as AnswerCode] : 500;
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' } as const;

export function acknowledged(body: Omit<AcknowledgedBody, 'received'>): WebhookResponse {
  return { status: 200, headers: { ...JSON_HEADERS }, body: { received: true, ...body } };
}

/** The answer of every handled or duplicate delivery: built without copying, it is the hot path's. */
export function acknowledgedEvent(event: { id: string; type: string }, duplicate: boolean): WebhookResponse {
  return { status: 200, headers: { 'content-type': JSON_HEADERS['content-type'] }, body: { received: true, id: event.id, type: event.type, duplicate } };
}

/**
 * An error in the platform's envelope. What reaches the sender is chosen per error: the sender
 * (and whoever can read its delivery log) learns what was wrong with the request, never how the
 * receiver is configured (`publicDetails`) or what a handler threw.
 */
export function failed(error: AcctWebhookError, headers: Record<string, string> = {}): WebhookResponse {
  const body = error.toBody();
  return { status: statusFor(error.code), headers: { ...JSON_HEADERS, ...headers }, body: publicBody(body) };
}

function publicBody({ error }: ErrorBody): ErrorBody {
  switch (error.code) {
    case 'SIGNATURE_MISMATCH':
      return envelope(error.code, 'The signature does not match the body', { secrets_tried: error.details.secrets_tried });
    case 'HANDLER_FAILED':
      return envelope(error.code, 'The event handler failed; retry later', { failures: error.details.failures });
    case 'UNKNOWN_BUSINESS':
      return envelope(error.code, 'No webhook secret is known for this business', { business_id: error.details.business_id ?? null });
    case 'SECRET_UNAVAILABLE':
      return envelope(error.code, 'The webhook secret could not be looked up; retry later', {});
    case 'NO_SECRET':
    case 'PAYLOAD_NOT_RAW':
    case 'INVALID_CONFIGURATION':
    case 'INTERNAL_ERROR':
      return envelope(error.code, 'The receiver is misconfigured or failed; retry later', {});
    default:
      return { error };
  }
}

function envelope(code: string, message: string, details: Record<string, unknown>): ErrorBody {
  return { error: { code, message, details } };
}
