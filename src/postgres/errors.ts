import { AcctWebhookError, type ErrorDetails } from '../errors.js';

/**
 * A value that cannot cross between JavaScript and PostgreSQL without changing: a time that is
 * not a whole number of milliseconds, or a bigint column beyond Number.MAX_SAFE_INTEGER.
 */
export class PostgresValueError extends AcctWebhookError<'UNSAFE_INTEGER'> {
  constructor(message: string, details: ErrorDetails) {
    super('UNSAFE_INTEGER', message, details);
  }
}
