import { AcctWebhookError, type ErrorDetails } from '../kernel/errors.js';

/** Every code a {@link DashboardError} carries. Match on the code, never on the message. */
export const DASHBOARD_ERROR_CODES = [
  'INVALID_PATH',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'CSRF_TOKEN_INVALID',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'VALIDATION_ERROR',
  'INTERNAL_ERROR',
  'PORTAL_LINK_INVALID',
  'PORTAL_LINK_EXPIRED',
  'PORTAL_LINK_USED',
] as const;
/** The codes of a {@link DashboardError}. */
export type DashboardErrorCode = (typeof DASHBOARD_ERROR_CODES)[number];

const STATUSES: Readonly<Record<DashboardErrorCode, number>> = {
  INVALID_PATH: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  CSRF_TOKEN_INVALID: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  VALIDATION_ERROR: 422,
  INTERNAL_ERROR: 500,
  PORTAL_LINK_INVALID: 403,
  PORTAL_LINK_EXPIRED: 410,
  PORTAL_LINK_USED: 410,
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

/** A request path with a `.` or `..` segment (raw or `%2e`): refused before the base path is matched. */
export function invalidPath(): DashboardError {
  return new DashboardError('INVALID_PATH', 'The path has a . or .. segment; request the page by its own path', {});
}

/** What an unexpected failure answers: the details stay in the log, not in the answer. */
export function internalError(): DashboardError {
  return new DashboardError('INTERNAL_ERROR', 'The dashboard failed to answer this request; the error is in the log');
}
