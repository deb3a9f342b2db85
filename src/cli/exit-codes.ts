import { EXIT_CODES, type ExitCode } from '../cli-kit/exit-codes.js';
import { isAcctWebhookError } from '../kernel/errors.js';
import { CLI_ERROR_EXITS, type CliErrorCode } from './errors.js';

export { EXIT_CODES, type ExitCode } from '../cli-kit/exit-codes.js';

/**
 * The library's codes that mean "the input cannot work" (exit 2) when they stop a command: a
 * value given on the command line that the library refused. The CLI's own codes say their exit
 * in CLI_ERROR_EXITS; every other error — a signature that does not verify, anything unexpected —
 * is a failure of the work itself (exit 1).
 */
const LIBRARY_USAGE_CODES: ReadonlySet<string> = new Set([
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
  if (Object.hasOwn(CLI_ERROR_EXITS, error.code)) return EXIT_CODES[CLI_ERROR_EXITS[error.code as CliErrorCode]];
  return LIBRARY_USAGE_CODES.has(error.code) ? EXIT_CODES.usage : EXIT_CODES.failure;
}
