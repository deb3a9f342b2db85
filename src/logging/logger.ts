import { jsonLogger } from './json-logger.js';

/** One logging method: a message, or fields and a message (pino's argument order). */
export interface LogFn {
  (fields: object, message?: string): void;
  (message: string): void;
}

/**
 * What the receiver and the dispatcher log through: the subset of pino's API they call. A pino
 * logger fits as it is; so does any logger with these four levels and `child` (the built-in
 * default is one, see {@link defaultLogger}).
 */
export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  /**
   * A logger that adds `bindings` to every line. `options.redact` lists paths (pino's syntax) to
   * blank in that logger's lines; pino and the built-in default honour it, other loggers may
   * ignore it.
   */
  child(bindings: Record<string, unknown>, options?: { redact?: string[] }): Logger;
}

/** Which part of the package wrote a line (`component` on every line). */
export type LogComponent = 'receiver' | 'dispatcher' | 'dashboard' | 'client';

/** The `logger` option of the receiver, the dispatcher and the dashboard: a logger, or `false` for silence. */
export type LoggerOption = Logger | false;

/**
 * Paths blanked by the default logger (and in a handler's `log`, whatever logger it comes from).
 * Neither side ever passes a secret, a signature or a custom header value to its logger; this is
 * the second line of defence, one list for both sides. pino's syntax: a key that is not a plain
 * name is in brackets, at the top as below it (pino reads `"x-svc-signature"` as no path at all).
 */
export const REDACTED_PATHS: readonly string[] = [
  'secret',
  '*.secret',
  'signature',
  '*.signature',
  'headers',
  '*.headers',
  '["x-svc-signature"]',
  '*["x-svc-signature"]',
  '["x-service-signature"]',
  '*["x-service-signature"]',
];

/** The `name` on every line of the default logger. */
export const DEFAULT_LOGGER_NAME = 'acct-webhook';

/** What a redacted value becomes in the default logger's lines. */
export const REDACTED_CENSOR = '[redacted]';

/**
 * The one logging default of the package: JSON lines in pino's format at `info`, to **stderr**,
 * named `acct-webhook`, with `component` saying which side wrote the line. Written by a logger
 * built in (json-logger.ts), not by pino: the package does not depend on pino, and a pino logger
 * passed as `logger` is used as it is. Standard error, because a library's diagnostics must never
 * mix with a program's output (a JSON Lines export to stdout, a CLI's table). Where there is
 * no standard error (Cloudflare Workers), the lines go to `console.error`.
 */
export function defaultLogger(component: LogComponent): Logger {
  return jsonLogger({
    level: 'info',
    bindings: { component, name: DEFAULT_LOGGER_NAME },
    redact: REDACTED_PATHS,
    censor: REDACTED_CENSOR,
    write: writeLine,
  });
}

/**
 * Where the default logger's lines go: standard error on Node.js; `console.error` where there
 * is no `process.stderr` (Cloudflare Workers, whose log tools read the console, with or without
 * nodejs_compat). Looked up at each line: process.stderr writes synchronously to files, pipes
 * and terminals on Linux, so a line is out before the process can end.
 */
function writeLine(line: string): void {
  const stderr = typeof process === 'undefined' ? undefined : (process.stderr as NodeJS.WriteStream | undefined);
  if (typeof stderr?.write === 'function') stderr.write(line);
  else console.error(line.endsWith('\n') ? line.slice(0, -1) : line);
}

const NOOP: LogFn = () => undefined;

/** A logger that writes nothing; `child` returns itself. */
export const silentLogger: Logger = Object.freeze({
  debug: NOOP,
  info: NOOP,
  warn: NOOP,
  error: NOOP,
  child: () => silentLogger,
});

/**
 * Resolves the `logger` option: `false` → silent, nothing → the default, a logger → a child of it
 * with `component` on every line (as the default has), so both sides' lines can be told apart.
 */
export function resolveLogger(option: LoggerOption | undefined, component: LogComponent): Logger {
  if (option === false) return silentLogger;
  return option === undefined ? defaultLogger(component) : option.child({ component });
}

/** Is `value` usable as a {@link Logger}? (Checked when a factory runs.) */
export function isLogger(value: unknown): value is Logger {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return ['debug', 'info', 'warn', 'error', 'child'].every((method) => typeof candidate[method] === 'function');
}
