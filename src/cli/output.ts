import type { CliIo, TerminalStream } from './io.js';

const ANSI = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
} as const;
export type Style = keyof typeof ANSI;

/**
 * What a command prints. Results go to stdout, notes and errors to stderr; colours only on a
 * terminal (and never with NO_COLOR); a status line (the progress bar) lives on stderr and is
 * cleared before anything else is printed, so lines and bar never mix.
 */
export class Output {
  private statusText = '';

  constructor(private readonly io: CliIo) {}

  get stdoutIsTTY(): boolean {
    return this.io.stdout.isTTY === true;
  }

  get stderrIsTTY(): boolean {
    return this.io.stderr.isTTY === true;
  }

  /** Whether stdout is a terminal that wants colours (and NO_COLOR is not set). */
  get stdoutHasColors(): boolean {
    return this.colors(this.io.stdout);
  }

  get stderrHasColors(): boolean {
    return this.colors(this.io.stderr);
  }

  /** The raw stdout stream, for streaming output such as JSON Lines. */
  get stdoutStream(): TerminalStream {
    return this.io.stdout;
  }

  /** One line of results on stdout. */
  line(text = ''): void {
    this.write(this.io.stdout, `${text}\n`);
  }

  /** Text on stdout exactly as given (no newline added). */
  raw(text: string): void {
    this.write(this.io.stdout, text);
  }

  /** A JSON document on stdout (`--json`). */
  json(value: unknown): void {
    this.line(JSON.stringify(value, null, 2));
  }

  /** One compact JSON object per line on stdout (`--json` of long-running commands). */
  jsonLine(value: unknown): void {
    this.line(JSON.stringify(value));
  }

  /** A remark for the person at the terminal, on stderr, so that stdout stays the result. */
  note(text: string): void {
    this.write(this.io.stderr, `${text}\n`);
  }

  /** `text` in a colour or weight when stdout is a terminal that wants colours; plain otherwise. */
  style(style: Style, text: string): string {
    if (!this.colors(this.io.stdout)) return text;
    const [open, close] = ANSI[style];
    return `\u001b[${open}m${text}\u001b[${close}m`;
  }

  /** Shows `text` as the redrawn status line on a stderr terminal; nothing elsewhere. */
  status(text: string): void {
    if (!this.stderrIsTTY) return;
    this.statusText = text;
    this.io.stderr.write(`\r\u001b[2K${text}`);
  }

  /** Removes the status line for good. */
  clearStatus(): void {
    if (this.statusText === '') return;
    this.io.stderr.write('\r\u001b[2K');
    this.statusText = '';
  }

  private write(stream: TerminalStream, text: string): void {
    if (this.statusText === '') {
      stream.write(text);
      return;
    }
    this.io.stderr.write('\r\u001b[2K');
    stream.write(text);
    this.io.stderr.write(this.statusText);
  }

  private colors(stream: TerminalStream): boolean {
    const env = this.io.env;
    return stream.isTTY === true && env.NO_COLOR === undefined && env.TERM !== 'dumb';
  }
}
