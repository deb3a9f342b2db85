import type { StopRequests } from './stop-requests.js';

/** A stream as the CLI writes to it: `process.stdout` / `process.stderr`, or a test double. */
export interface TerminalStream extends NodeJS.WritableStream {
  isTTY?: boolean;
  columns?: number;
}

/**
 * The process's surroundings, handed to every command (never read from globals inside a
 * command), so what a command prints, where it reads from and when it stops is decided in one
 * place: main.ts for the process, a test for a run in its own process.
 */
export interface CliIo {
  readonly stdout: TerminalStream;
  readonly stderr: TerminalStream;
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Read for WEBHOOK_SECRET and NO_COLOR. */
  readonly env: NodeJS.ProcessEnv;
  /** The package version, for `--version` and the user agent. */
  readonly version: string;
  /** What ends a long-running command: Ctrl-C, SIGTERM, its output closed. */
  readonly stopRequests: StopRequests;
}
