import { EXIT_CODES, type ExitCode } from '../cli-kit/exit-codes.js';
import { isAcctWebhookError } from '../errors.js';

export { EXIT_CODES, type ExitCode } from '../cli-kit/exit-codes.js';

/**
 * Codes that mean "the input cannot work" (exit 2): the command line, a file, or a value the
 * library refused. Every other error — a signature that does not verify, a receiver that does
 * not answer 2xx, anything unexpected — is a failure of the work itself (exit 1).
 */
const USAGE_CODES: ReadonlySet<string> = new Set([
  'INVALID_ARGUMENTS',
  'INVALID_OPTION',
  'MISSING_SECRET',
  'MISSING_INPUT',
  'UNKNOWN_EVENT_TYPE',
  'UNREADABLE_FILE',
  'MALFORMED_INPUT',
  // The library's refusals of what was given on the command line:
  'INVALID_CONFIGURATION',
  'INVALID_URL',
  'FORBIDDEN_HEADER',
  'VALIDATION_ERROR',
  'INVALID_JSON',
  'INVALID_ENCODING',
  'NOT_FOUND',
  'EVENT_ID_CONFLICT',
  'NO_SECRET',
]);

/** The exit code a command ends with when `error` stops it. */
export function exitCodeFor(error: unknown): ExitCode {
  if (!isAcctWebhookError(error)) return EXIT_CODES.failure;
  if (error.code === 'CANCELLED') return EXIT_CODES.cancelled;
  return USAGE_CODES.has(error.code) ? EXIT_CODES.usage : EXIT_CODES.failure;
}
