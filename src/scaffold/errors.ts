import { AcctWebhookError } from '../errors.js';

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
  'CANCELLED',
  'TEMPLATE_ERROR',
  'WRITE_FAILED',
  'INSTALL_FAILED',
] as const;
export type ScaffoldErrorCode = (typeof SCAFFOLD_ERROR_CODES)[number];

/** Process exit codes, the way shells and `npm create` read them. */
export const EXIT_CODES = {
  ok: 0,
  /** Something failed while or after writing (a template, the disk, the install). */
  failure: 1,
  /** The command line or an answer cannot work; nothing was written. */
  usage: 2,
  /** The user cancelled a prompt (Ctrl-C), like a shell's 128 + SIGINT. */
  cancelled: 130,
} as const;
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

const USAGE_ERRORS: ReadonlySet<ScaffoldErrorCode> = new Set([
  'INVALID_ARGUMENTS',
  'INVALID_NAME',
  'DIRECTORY_NOT_EMPTY',
  'NOT_A_DIRECTORY',
  'UNKNOWN_EVENT_TYPE',
  'UNKNOWN_OPTION_VALUE',
]);

/** Why `create-acct-webhook` stopped; `exitCode` is what the process ends with. */
export class ScaffoldError extends AcctWebhookError<ScaffoldErrorCode> {
  /** The exit code this error ends the process with. */
  get exitCode(): ExitCode {
    if (this.code === 'CANCELLED') return EXIT_CODES.cancelled;
    return USAGE_ERRORS.has(this.code) ? EXIT_CODES.usage : EXIT_CODES.failure;
  }
}
