/** A stream as the CLI writes to it: `process.stdout` / `process.stderr`, or a test double. */
export interface TerminalStream extends NodeJS.WritableStream {
  isTTY?: boolean;
  columns?: number;
}

/**
 * The process's surroundings, handed to every command (never read from globals inside a
 * command), so what a command prints and where it reads from is decided in one place.
 */
export interface CliIo {
  readonly stdout: TerminalStream;
  readonly stderr: TerminalStream;
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
  /** The package version, for `--version` and the user agent. */
  readonly version: string;
}
