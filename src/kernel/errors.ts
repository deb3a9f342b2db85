/**
 * Every error this package throws on purpose is an {@link AcctWebhookError}: it carries a stable
 * `code` (the same string that goes into HTTP error bodies and CLI output) and `details` with the
 * context that helps to fix it. Match on `code`, never on `message` text.
 */
export type ErrorDetails = Record<string, unknown>;

/** The platform's error envelope: `{ error: { code, message, details } }`. */
export interface ErrorBody {
  error: { code: string; message: string; details: ErrorDetails };
}

/**
 * The base class of every error this package throws on purpose: a stable `code` and `details`.
 *
 * @example
 * try { constructEvent(body, headers, secret); } catch (error) {
 *   if (error instanceof AcctWebhookError) res.status(400).json(error.toBody());
 * }
 */
export class AcctWebhookError<Code extends string = string> extends Error {
  readonly code: Code;
  readonly details: ErrorDetails;

  constructor(code: Code, message: string, details: ErrorDetails = {}, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }

  /** The error in the platform's envelope, ready to be sent as a response body. */
  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, details: this.details } };
  }
}

export function isAcctWebhookError(value: unknown): value is AcctWebhookError {
  return value instanceof AcctWebhookError;
}

export const VERIFICATION_ERROR_CODES = [
  'MISSING_SIGNATURE',
  'MALFORMED_SIGNATURE',
  'MISSING_TIMESTAMP',
  'MALFORMED_TIMESTAMP',
  'MISSING_WEBHOOK_ID',
  'MALFORMED_WEBHOOK_ID',
  'WEBHOOK_ID_MISMATCH',
  'TIMESTAMP_TOO_OLD',
  'TIMESTAMP_IN_FUTURE',
  'SIGNATURE_MISMATCH',
  'NO_SECRET',
  'PAYLOAD_NOT_RAW',
] as const;
/** The codes of a {@link WebhookVerificationError}: a missing, malformed, stale or wrong signature, or no usable secret or raw body. */
export type VerificationErrorCode = (typeof VERIFICATION_ERROR_CODES)[number];

/** A request whose signature or timestamp cannot be trusted. */
export class WebhookVerificationError extends AcctWebhookError<VerificationErrorCode> {}

export const VALIDATION_ERROR_CODES = [
  'INVALID_ENCODING',
  'INVALID_JSON',
  'VALIDATION_ERROR',
  'UNKNOWN_EVENT_TYPE',
] as const;
/** The codes of a {@link WebhookValidationError}: bad bytes, bad JSON, a schema violation, or an unknown event type. */
export type ValidationErrorCode = (typeof VALIDATION_ERROR_CODES)[number];

/** One reason a payload does not match its schema; `path` is dotted (`data.object.amount`). */
export interface ValidationIssue {
  path: string;
  message: string;
}

/**
 * A payload that is authentic but does not match the event schema. `details.field` and
 * `details.reason` name the first problem (the platform's VALIDATION_ERROR shape);
 * `issues` lists all of them.
 */
export class WebhookValidationError extends AcctWebhookError<ValidationErrorCode> {
  readonly issues: readonly ValidationIssue[];

  constructor(code: ValidationErrorCode, message: string, issues: readonly ValidationIssue[] = [], details: ErrorDetails = {}) {
    const first = issues[0];
    super(code, message, { ...(first ? { field: first.path, reason: first.message } : {}), ...details, issues });
    this.issues = issues;
  }
}

/**
 * The one shape of a configuration error's `details`: which option (a dotted path inside the
 * options object, or the argument's name) and what is wrong with it. Never the value itself: an
 * option may be a secret.
 */
export type ConfigurationErrorDetails = {
  option: string;
  reason: string;
};

/**
 * Options that cannot work; thrown when a factory runs, never on the first request.
 *
 * @example
 * try { new Dispatcher({ timeoutMs: -1 }); } catch (error) {
 *   if (error instanceof ConfigurationError) console.error(error.details.option); // 'timeoutMs'
 * }
 */
export class ConfigurationError extends AcctWebhookError<'INVALID_CONFIGURATION'> {
  declare readonly details: ConfigurationErrorDetails;

  constructor(details: ConfigurationErrorDetails, message = `${details.option} ${details.reason}`, options?: ErrorOptions) {
    super('INVALID_CONFIGURATION', message, { option: details.option, reason: details.reason }, options);
  }
}
