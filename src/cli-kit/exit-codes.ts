/**
 * Process exit codes of this package's command-line tools (`acct-webhook`,
 * `create-acct-webhook`), the way shells and CI scripts read them.
 */
export const EXIT_CODES = {
  ok: 0,
  /** The work itself failed: a verification, a delivery, a write, an install. */
  failure: 1,
  /** The command line or an input cannot work: nothing useful was done. */
  usage: 2,
  /** The user cancelled (Ctrl-C at a prompt), like a shell's 128 + SIGINT. */
  cancelled: 130,
  /**
   * The reader of the output went away (`… | head -1`): like a Unix tool ended by SIGPIPE
   * (128 + 13), but quietly and, for a long-running command, after finishing what was in flight.
   */
  closedOutput: 141,
} as const;
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];
