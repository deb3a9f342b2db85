import { AcctWebhookError, type ErrorDetails } from '../kernel/errors.js';

/** Every code the sandbox's API answers with; the platform document's codes. */
export const SANDBOX_ERROR_CODES = ['UNAUTHORIZED', 'FORBIDDEN', 'VALIDATION_ERROR', 'NOT_FOUND', 'RATE_LIMIT_EXCEEDED', 'INTERNAL_ERROR'] as const;
/** The codes of a {@link SandboxError}. */
export type SandboxErrorCode = (typeof SANDBOX_ERROR_CODES)[number];

const STATUS: Record<SandboxErrorCode, number> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  VALIDATION_ERROR: 422,
  NOT_FOUND: 404,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
};

/** A request the sandbox refused, with the HTTP status it answers and the platform's error envelope. */
export class SandboxError extends AcctWebhookError<SandboxErrorCode> {
  readonly status: number;

  constructor(code: SandboxErrorCode, message: string, details: ErrorDetails = {}, status: number = STATUS[code]) {
    super(code, message, details);
    this.status = status;
  }

  /**
   * VALIDATION_ERROR with the document's details `{ field, reason }`: 422 for well-formed input
   * with invalid values, 400 for a request that cannot be read (`malformed`). The message is the
   * field and its reason ("amount must be an integer number of cents"); for the body as a whole
   * (`field: ''`), the reason is a sentence ("the body must be a JSON object").
   */
  static validation(field: string, reason: string, { malformed = false }: { malformed?: boolean } = {}): SandboxError {
    // A field's reason is a predicate ("must be …"); the body's (field '') a sentence of its own.
    const message = field === '' ? `${reason.charAt(0).toUpperCase()}${reason.slice(1)}` : `${field} ${reason}`;
    return new SandboxError('VALIDATION_ERROR', message, { field, reason }, malformed ? 400 : 422);
  }

  /**
   * FORBIDDEN 403: the id names a resource of another account of the sandbox. The details say
   * only what the request itself said — `{ resource, id }`, and `field` when the id came in the
   * body — never anything of the other account.
   */
  static forbidden(resource: string, id: string, field?: string): SandboxError {
    return new SandboxError('FORBIDDEN', `The ${resource} "${id}" belongs to another account; this key's account cannot use it`, {
      resource,
      id,
      ...(field === undefined ? {} : { field }),
    });
  }

  static notFound(resource: string, id: string): SandboxError {
    return new SandboxError('NOT_FOUND', `No ${resource} with id "${id}"`, { resource, id });
  }
}
