import { parseRedactionPath, redact, type RedactionPath } from './log-redaction.js';

/*
 * The package's default logger: JSON lines in pino's format, without pino. The receiver and the
 * dispatcher log a line per delivery or attempt and a few warnings; pino's speed is not needed
 * for that, and its 2.7 MB of installed packages would be paid by every user, most of whom pass
 * a logger of their own or none (docs/api.md, "Logging"). The lines read as pino's do, so that
 * what parses them (a log shipper, `acct-webhook replay`, the tests) sees no difference:
 *
 *   {"level":30,"time":1764064800000,"component":"receiver","name":"acct-webhook",…fields,"msg":"webhook delivery"}
 *
 * - `level` is pino's number (20 debug, 30 info, 40 warn, 50 error), `time` milliseconds since
 *   the epoch, `msg` the message (absent when none is given);
 * - an Error, under any key, is written as pino's `err` serializer writes it: `type`, `message`
 *   and `stack` with their causes, `aggregateErrors`, and its own enumerable properties;
 * - an Error passed instead of fields becomes `err`, and its message the line's;
 * - a value JSON has no form for: a bigint is written as a number (as a string beyond 2^53), a
 *   circular reference as "[Circular]"; a function, a symbol or `undefined` is left out.
 */

/** pino's numbers for the levels the package logs at. */
export const LOG_LEVELS = { debug: 20, info: 30, warn: 40, error: 50 } as const;
export type LogLevel = keyof typeof LOG_LEVELS;

export interface JsonLoggerOptions {
  /** The lowest level written. */
  level: LogLevel;
  /** Fields on every line, first after `level` and `time`. */
  bindings: Record<string, unknown>;
  /** Paths (pino's syntax) blanked in every line, fields and bindings alike. */
  redact: readonly string[];
  /** What a blanked value becomes. */
  censor: string;
  /** Takes each line, `\n` included. */
  write: (line: string) => void;
  /** Milliseconds since the epoch, for `time`. @default Date.now */
  now?: () => number;
}

/** One level's method: fields (or an Error) and a message, or a message. */
export type JsonLogMethod = (fieldsOrMessage: object | string, message?: string) => void;

/** A logger writing JSON lines (see the top of this file); it fits logger.ts's `Logger`. */
export function jsonLogger(options: JsonLoggerOptions): JsonLogger {
  return new JsonLogger(
    {
      minimum: LOG_LEVELS[options.level],
      censor: options.censor,
      write: options.write,
      now: options.now ?? Date.now,
    },
    options.bindings,
    options.redact.map(parseRedactionPath),
  );
}

interface Shared {
  minimum: number;
  censor: string;
  write: (line: string) => void;
  now: () => number;
}

export class JsonLogger {
  readonly debug: JsonLogMethod;
  readonly info: JsonLogMethod;
  readonly warn: JsonLogMethod;
  readonly error: JsonLogMethod;

  constructor(
    private readonly shared: Shared,
    private readonly bindings: Readonly<Record<string, unknown>>,
    private readonly paths: readonly RedactionPath[],
  ) {
    this.debug = this.method(LOG_LEVELS.debug);
    this.info = this.method(LOG_LEVELS.info);
    this.warn = this.method(LOG_LEVELS.warn);
    this.error = this.method(LOG_LEVELS.error);
  }

  /**
   * A logger adding `bindings` to every line. `options.redact` adds paths to this logger's (pino
   * would replace them: here a child never writes what its parent blanks).
   */
  child(bindings: Record<string, unknown>, options?: { redact?: string[] }): JsonLogger {
    const added = options?.redact?.map(parseRedactionPath) ?? [];
    return new JsonLogger(this.shared, { ...this.bindings, ...bindings }, [...this.paths, ...added]);
  }

  private method(level: number): JsonLogMethod {
    if (level < this.shared.minimum) return () => undefined;
    return (first: object | string, message?: string) => this.shared.write(this.line(level, first, message));
  }

  private line(level: number, first: object | string, message: string | undefined): string {
    const [fields, msg] = typeof first === 'string' ? [{}, first] : first instanceof Error ? [{ err: first }, message ?? first.message] : [first, message];
    const time = this.shared.now();
    try {
      return this.json({ level, time, ...this.bindings, ...fields }, level, time, msg);
    } catch (error) {
      // A getter or a toJSON that throws: the line is still written, without the fields, and
      // the logger never throws into the code that logs.
      return this.json({ level, time, ...this.bindings, logError: `the fields could not be written: ${String(error)}` }, level, time, msg);
    }
  }

  /** `level`, `time` and `msg` are the logger's, whatever fields of those names say. */
  private json(record: Record<string, unknown>, level: number, time: number, msg: string | undefined): string {
    record.level = level;
    record.time = time;
    if (msg !== undefined) {
      delete record.msg;
      record.msg = msg;
    }
    return `${JSON.stringify(loggable(redact(record, this.paths, this.shared.censor), new Set()))}\n`;
  }
}

/** A copy of `value` that JSON.stringify writes as pino would (see the top of this file). */
function loggable(value: unknown, ancestors: Set<object>): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value === null || typeof value !== 'object') return value;
  if (ancestors.has(value)) return '[Circular]';
  ancestors.add(value);
  try {
    if (isErrorLike(value)) return serializedError(value, ancestors);
    const json = (value as { toJSON?: unknown }).toJSON;
    if (typeof json === 'function') return loggable((json as () => unknown).call(value), ancestors);
    if (Array.isArray(value)) return value.map((item: unknown) => loggable(item, ancestors));
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = loggable(item, ancestors);
    return copy;
  } finally {
    ancestors.delete(value);
  }
}

interface ErrorLike {
  message: string;
  stack?: unknown;
  name?: unknown;
  cause?: unknown;
  errors?: unknown;
}

function isErrorLike(value: unknown): value is ErrorLike {
  return value instanceof Error || (typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string' && 'stack' in value);
}

/** pino's `err` serializer: type, message and stack with their causes, aggregated errors, own enumerable properties. */
function serializedError(error: ErrorLike, ancestors: Set<object>): Record<string, unknown> {
  const serialized: Record<string, unknown> = {
    type: typeof error.constructor === 'function' ? error.constructor.name : error.name,
    message: messageWithCauses(error),
    stack: stackWithCauses(error),
  };
  if (Array.isArray(error.errors)) serialized.aggregateErrors = error.errors.map((item: unknown) => loggable(item, ancestors));
  for (const key in error) {
    // The causes are in `message` and `stack` already.
    if (serialized[key] !== undefined || (key === 'cause' && isErrorLike(error.cause))) continue;
    serialized[key] = loggable((error as unknown as Record<string, unknown>)[key], ancestors);
  }
  return serialized;
}

function causeOf(error: ErrorLike): ErrorLike | undefined {
  return isErrorLike(error.cause) ? error.cause : undefined;
}

/** `outer: inner: innermost`, as pino writes a chain of causes. */
function messageWithCauses(error: ErrorLike, seen = new Set<ErrorLike>()): string {
  const cause = causeOf(error);
  if (cause === undefined) return error.message;
  if (seen.has(error)) return `${error.message}: ...`;
  seen.add(error);
  return `${error.message}: ${messageWithCauses(cause, seen)}`;
}

/** Each stack, the causes' after `caused by: `, as pino writes them. */
function stackWithCauses(error: ErrorLike, seen = new Set<ErrorLike>()): string {
  const stack = typeof error.stack === 'string' ? error.stack : '';
  const cause = causeOf(error);
  if (cause === undefined) return stack;
  if (seen.has(error)) return `${stack}\ncauses have become circular...`;
  seen.add(error);
  return `${stack}\ncaused by: ${stackWithCauses(cause, seen)}`;
}
