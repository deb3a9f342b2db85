import { validateHeaderName, validateHeaderValue } from 'node:http';
import { isEventPattern, type EventPattern } from '../events/catalog.js';
import { DispatcherError } from './errors.js';
import type { WebhookStatus } from './records.js';
import { SIGNING_ALGORITHMS, WEBHOOK_SCHEMES, type SigningAlgorithm, type WebhookScheme, type WebhookScope } from '../ports/dispatch-statuses.js';
import { isStandardBase64Secret } from '../signing/standard-webhooks-scheme.js';

/** Headers the dispatcher writes itself, or that would change how the request is framed or read. */
const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'x-service-signature',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'host',
  'user-agent',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);
const RESERVED_PREFIX = 'x-svc-';
export const MAX_CUSTOM_HEADERS = 20;
export const MAX_HEADER_VALUE_LENGTH = 8192;
const STATUSES: readonly WebhookStatus[] = ['active', 'disabled'];
/** The longest grace a rotation may give the previous secret: 30 days. */
export const MAX_ROTATION_GRACE_MS = 30 * 24 * 60 * 60 * 1000;
/** Attempts per second a rate limit may allow at most. */
const MAX_RATE_LIMIT = 100_000;

/**
 * The events of a registration: a non-empty list of event types or patterns (`invoice.*`, `*`).
 * Duplicates are dropped; the order is kept.
 */
export function validateEvents(value: unknown): EventPattern[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new DispatcherError('VALIDATION_ERROR', 'events must be a non-empty array of event types', {
      field: 'events',
      reason: 'must be a non-empty array',
    });
  }
  for (const entry of value as unknown[]) {
    if (!isEventPattern(entry)) {
      throw new DispatcherError('UNKNOWN_EVENT_TYPE', `Unknown event type or pattern "${String(entry)}"`, {
        field: 'events',
        value: entry,
        reason: 'not an event type, a prefix pattern such as invoice.* or *',
      });
    }
  }
  return [...new Set(value as EventPattern[])];
}

/**
 * Custom headers sent with every delivery. Names are stored in lower case. Values are never put
 * into error messages: they often hold credentials.
 */
export function validateHeaders(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw headerError('headers must be an object of header names to string values', 'must be an object');
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_CUSTOM_HEADERS) {
    throw headerError(`At most ${MAX_CUSTOM_HEADERS} custom headers`, 'too many headers');
  }
  // A Map, so that a name such as __proto__ is just a name.
  const headers = new Map<string, string>();
  for (const [rawName, headerValue] of entries) {
    const name = rawName.toLowerCase();
    checkHeaderName(name, rawName);
    checkHeaderValue(name, headerValue);
    if (headers.has(name)) throw headerError(`The header "${name}" is given twice`, 'duplicate header', name);
    headers.set(name, headerValue as string);
  }
  return Object.fromEntries(headers);
}

export function validateStatus(value: unknown): WebhookStatus {
  if (!STATUSES.includes(value as WebhookStatus)) {
    throw new DispatcherError('VALIDATION_ERROR', `status must be one of ${STATUSES.join(', ')}`, {
      field: 'status',
      reason: `must be one of ${STATUSES.join(', ')}`,
    });
  }
  return value as WebhookStatus;
}

/** A rate limit in attempts per second: a positive number, or null for none. */
export function validateRateLimit(value: unknown): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_RATE_LIMIT) {
    throw new DispatcherError('VALIDATION_ERROR', `rate_limit must be attempts per second, above 0 and at most ${MAX_RATE_LIMIT}, or null`, {
      field: 'rate_limit',
      reason: `must be a number above 0 and at most ${MAX_RATE_LIMIT}, or null`,
    });
  }
  return value;
}

function checkHeaderName(name: string, rawName: string): void {
  try {
    validateHeaderName(rawName);
  } catch {
    throw headerError(`"${rawName}" is not a valid header name`, 'invalid header name', rawName);
  }
  if (name.startsWith(RESERVED_PREFIX) || RESERVED_HEADERS.has(name)) {
    throw new DispatcherError('FORBIDDEN_HEADER', `The header "${name}" is set by the dispatcher and cannot be overridden`, {
      field: 'headers',
      header: name,
      reason: 'reserved header',
    });
  }
}

function checkHeaderValue(name: string, value: unknown): void {
  if (typeof value !== 'string') throw headerError(`The value of "${name}" must be a string`, 'value must be a string', name);
  if (value.length > MAX_HEADER_VALUE_LENGTH) {
    throw headerError(`The value of "${name}" is longer than ${MAX_HEADER_VALUE_LENGTH} characters`, 'value too long', name);
  }
  try {
    validateHeaderValue(name, value);
  } catch {
    throw headerError(`The value of "${name}" contains characters not allowed in a header (e.g. a line break)`, 'invalid header value', name);
  }
}

function headerError(message: string, reason: string, header?: string): DispatcherError {
  return new DispatcherError('VALIDATION_ERROR', message, { field: 'headers', reason, ...(header === undefined ? {} : { header }) });
}

export function validateScheme(value: unknown): WebhookScheme {
  if (!WEBHOOK_SCHEMES.includes(value as WebhookScheme)) {
    throw new DispatcherError('VALIDATION_ERROR', `scheme must be one of ${WEBHOOK_SCHEMES.join(', ')}`, { field: 'scheme', reason: `must be one of ${WEBHOOK_SCHEMES.join(', ')}` });
  }
  return value as WebhookScheme;
}

export function validateAlgorithm(value: unknown): SigningAlgorithm {
  if (!SIGNING_ALGORITHMS.includes(value as SigningAlgorithm)) {
    throw new DispatcherError('VALIDATION_ERROR', `algorithm must be one of ${SIGNING_ALGORITHMS.join(', ')}`, { field: 'algorithm', reason: `must be one of ${SIGNING_ALGORITHMS.join(', ')}` });
  }
  return value as SigningAlgorithm;
}

/**
 * A scheme and an algorithm that go together: ed25519 is Standard Webhooks' `v1a`, and the
 * platform's `x-svc-signature` is an HMAC, so ed25519 needs `scheme: 'standard-webhooks'`. A
 * secret issued before secrets were written in standard base64 (base64url) cannot be read by
 * Standard Webhooks' libraries: such a registration rotates its secret before it changes scheme.
 */
export function checkSigning(scheme: WebhookScheme, algorithm: SigningAlgorithm, secret?: string): void {
  if (algorithm === 'ed25519' && scheme !== 'standard-webhooks') {
    throw new DispatcherError('VALIDATION_ERROR', "ed25519 signs Standard Webhooks' v1a only: use scheme 'standard-webhooks' (the platform's x-svc-signature is an HMAC)", {
      field: 'algorithm',
      reason: "ed25519 needs scheme 'standard-webhooks'",
    });
  }
  if (secret !== undefined && algorithm === 'hmac-sha256' && scheme !== 'svc' && !isStandardBase64Secret(secret)) {
    throw new DispatcherError('VALIDATION_ERROR', "This registration's secret predates secrets in standard base64, which Standard Webhooks' libraries need: rotate it first (rotateSecret), then change the scheme", {
      field: 'scheme',
      reason: 'rotate the secret first',
    });
  }
}

/** A rotation's grace in milliseconds: 0 (the previous secret stops at once) up to {@link MAX_ROTATION_GRACE_MS}. */
export function validateGrace(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_ROTATION_GRACE_MS) {
    throw new DispatcherError('VALIDATION_ERROR', `graceMs must be whole milliseconds from 0 to ${MAX_ROTATION_GRACE_MS} (30 days)`, {
      field: 'graceMs',
      reason: `must be an integer from 0 to ${MAX_ROTATION_GRACE_MS}`,
    });
  }
  return value;
}

/** A registration's owner as stored: the business it belongs to, or none, with its scope. */
export interface RegistrationOwner {
  business_id: string | null;
  scope: WebhookScope;
}

/** Longest `business_id` a registration takes. */
export const MAX_BUSINESS_ID_LENGTH = 255;

/**
 * The owner of `create({ business_id, scope })`: a business (`scope` absent or `'business'`),
 * every business (`scope: 'platform'`, no `business_id`), or — neither given, as in 1.0 — `all`.
 */
export function validateOwner(businessId: unknown, scope: unknown): RegistrationOwner {
  if (scope !== undefined && scope !== 'business' && scope !== 'platform') {
    throw new DispatcherError('VALIDATION_ERROR', "scope must be 'business' or 'platform'", { field: 'scope', reason: "must be 'business' or 'platform'" });
  }
  if (scope === 'platform') {
    if (businessId !== undefined && businessId !== null) {
      throw new DispatcherError('VALIDATION_ERROR', 'A platform-scoped webhook receives every business\'s events: give no business_id', { field: 'business_id', reason: 'must be absent with scope platform' });
    }
    return { business_id: null, scope: 'platform' };
  }
  if (businessId === undefined && scope === undefined) return { business_id: null, scope: 'all' };
  if (typeof businessId !== 'string' || businessId.length === 0 || businessId.length > MAX_BUSINESS_ID_LENGTH) {
    throw new DispatcherError('VALIDATION_ERROR', `business_id must be a non-empty string of at most ${MAX_BUSINESS_ID_LENGTH} characters`, {
      field: 'business_id',
      reason: 'must be a non-empty string',
    });
  }
  return { business_id: businessId, scope: 'business' };
}
