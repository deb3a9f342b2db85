import { AcctWebhookError } from '../errors.js';

/**
 * Why `acct-webhook` stopped, besides the library's own errors (which keep their codes:
 * `SIGNATURE_MISMATCH`, `NOT_FOUND`, `INVALID_URL` …). Match on the code, never on the message.
 */
export const CLI_ERROR_CODES = [
  /** Commander refused the command line: an unknown option, a missing argument … */
  'INVALID_ARGUMENTS',
  /** An option's value cannot work: `--count 0`, `--since yesterday`, a URL that is not http(s). */
  'INVALID_OPTION',
  /** Neither `--secret` nor `WEBHOOK_SECRET` gave a secret. */
  'MISSING_SECRET',
  /** No body: no `--file`, and stdin is a terminal. */
  'MISSING_INPUT',
  /** A name that is not one of the catalog's event types or patterns. */
  'UNKNOWN_EVENT_TYPE',
  /** A file that does not exist, is a directory, or may not be read. */
  'UNREADABLE_FILE',
  /** An input file whose content is not what the command reads (JSON Lines, a dispatch database). */
  'MALFORMED_INPUT',
  /** No answer from the URL: refused, reset, DNS, timeout. */
  'UNREACHABLE',
  /** The receiver answered, but not with 2xx. */
  'DELIVERY_FAILED',
  /** The demo did not complete the way it shows things work. */
  'DEMO_FAILED',
  /** Stopped by Ctrl-C before it was done (exit 130). */
  'CANCELLED',
] as const;
export type CliErrorCode = (typeof CLI_ERROR_CODES)[number];

export class CliError extends AcctWebhookError<CliErrorCode> {}
