import { EXIT_CODES, type ExitCode } from '../cli-kit/exit-codes.js';
import { AcctWebhookError } from '../kernel/errors.js';

export { EXIT_CODES, type ExitCode } from '../cli-kit/exit-codes.js';

/**
 * Why the scaffolder stopped. Usage errors (a bad name, a non-empty directory, an unknown event
 * type or option value) are found before anything is written; the others happen after.
 */
export const SCAFFOLD_ERROR_CODES = [
  'INVALID_ARGUMENTS',
  'INVALID_NAME',
  'DIRECTORY_NOT_EMPTY',
  'NOT_A_DIRECTORY',
  'UNKNOWN_EVENT_TYPE',
  'UNKNOWN_OPTION_VALUE',
  'PACKAGE_MANAGER_NOT_FOUND',
  'CANCELLED',
  'TEMPLATE_ERROR',
  'WRITE_FAILED',
  'INSTALL_FAILED',
] as const;
export type ScaffoldErrorCode = (typeof SCAFFOLD_ERROR_CODES)[number];

const USAGE_ERRORS: ReadonlySet<ScaffoldErrorCode> = new Set([
  'INVALID_ARGUMENTS',
  'INVALID_NAME',
  'DIRECTORY_NOT_EMPTY',
  'NOT_A_DIRECTORY',
  'UNKNOWN_EVENT_TYPE',
  'UNKNOWN_OPTION_VALUE',
  'PACKAGE_MANAGER_NOT_FOUND',
]);

/** Why `create-acct-webhook` stopped; `exitCode` is what the process ends with. */
export class ScaffoldError extends AcctWebhookError<ScaffoldErrorCode> {
  /** The exit code this error ends the process with. */
  get exitCode(): ExitCode {
    if (this.code === 'CANCELLED') return EXIT_CODES.cancelled;
    return USAGE_ERRORS.has(this.code) ? EXIT_CODES.usage : EXIT_CODES.failure;
  }
}
