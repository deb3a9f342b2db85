import type { EXIT_CODES } from '../cli-kit/exit-codes.js';
import { AcctWebhookError } from '../kernel/errors.js';

/**
 * Why `acct-webhook` stopped, besides the library's own errors (which keep their codes:
 * `SIGNATURE_MISMATCH`, `NOT_FOUND`, `INVALID_URL` …), each with the exit it ends with:
 * `usage` (2) when the input cannot work, `failure` (1) when the work itself failed,
 * `cancelled` (130). Match on the code, never on the message.
 */
export const CLI_ERROR_EXITS = {
  /** Commander refused the command line: an unknown option, a missing argument … */
  INVALID_ARGUMENTS: 'usage',
  /** An option's value cannot work: `--count 0`, `--since yesterday`, a URL that is not http(s). */
  INVALID_OPTION: 'usage',
  /** Neither `--secret` nor `WEBHOOK_SECRET` gave a secret. */
  MISSING_SECRET: 'usage',
  /** No body: no `--file`, and stdin is a terminal. */
  MISSING_INPUT: 'usage',
  /** A name that is not one of the catalog's event types or patterns. */
  UNKNOWN_EVENT_TYPE: 'usage',
  /** A file that does not exist, is a directory, or may not be read. */
  UNREADABLE_FILE: 'usage',
  /** An input file whose content is not what the command reads (JSON Lines, a dispatch database). */
  MALFORMED_INPUT: 'usage',
  /** A URL that is not this machine for a command that only sends to loopback unless allowed (`conformance` without --allow-remote). */
  REMOTE_URL: 'usage',
  /** An exported attempt whose payload the dispatcher no longer keeps (retention, erase): `replay` skips it. */
  PAYLOAD_NOT_KEPT: 'usage',
  /** No answer from the URL: refused, reset, DNS, timeout. */
  UNREACHABLE: 'failure',
  /** The receiver answered, but not with 2xx. */
  DELIVERY_FAILED: 'failure',
  /** The demo did not complete the way it shows things work. */
  DEMO_FAILED: 'failure',
  /** Stopped by Ctrl-C before it was done. */
  CANCELLED: 'cancelled',
} as const satisfies Record<string, keyof typeof EXIT_CODES>;
export type CliErrorCode = keyof typeof CLI_ERROR_EXITS;

export class CliError extends AcctWebhookError<CliErrorCode> {}
