import { AcctWebhookError, type ErrorDetails } from '../errors.js';

/** Every code a {@link DashboardError} carries. Match on the code, never on the message. */
export const DASHBOARD_ERROR_CODES = [
  'UNAUTHORIZED',
  'FORBIDDEN',
  'CSRF_TOKEN_INVALID',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'VALIDATION_ERROR',
] as const;
/** The codes of a {@link DashboardError}. */
export type DashboardErrorCode = (typeof DASHBOARD_ERROR_CODES)[number];

const STATUSES: Readonly<Record<DashboardErrorCode, number>> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  CSRF_TOKEN_INVALID: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  VALIDATION_ERROR: 422,
};

/** A dashboard request that was refused; its HTTP status follows from the code. */
export class DashboardError extends AcctWebhookError<DashboardErrorCode> {
  constructor(code: DashboardErrorCode, message: string, details: ErrorDetails = {}) {
    super(code, message, details);
  }

  get status(): number {
    return STATUSES[this.code];
  }
}

/** A form larger than `maxBytes`: refused before or while it is read. */
export function formTooLarge(maxBytes: number): DashboardError {
  return new DashboardError('PAYLOAD_TOO_LARGE', `Forms are at most ${maxBytes} bytes`, { max_body_bytes: maxBytes });
}
