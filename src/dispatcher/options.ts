import type { Database } from 'better-sqlite3';
import type { Logger } from 'pino';
import { ConfigurationError } from '../errors.js';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_DATABASE_FILE,
  DELIVERY_TIMEOUT_MS,
  DISPATCH_LEASE_MARGIN_MS,
  MANUAL_RETRY_LIMIT,
  MAX_IDLE_MS,
} from './defaults.js';
import type { RateLimit } from './rate-limit.js';
import { RETRY_SCHEDULE } from './schedule.js';
import type { TrustedCa } from './sender.js';
import { SqliteDispatchStorage } from './sqlite-storage.js';
import type { DispatchStorage } from './storage.js';
import { resolveWithSystem, type ResolveHost } from './url-guard.js';

export interface DispatcherOptions {
  /**
   * Where registrations, events, the schedule and the delivery log live: a SQLite file path, an
   * open better-sqlite3 database, or any {@link DispatchStorage} (e.g. PostgreSQL).
   * @default './webhook-dispatch.db'
   */
  database?: string | Database | DispatchStorage;
  /** Total time per attempt, connect to last byte. @default 30_000 (DELIVERY_TIMEOUT_MS) */
  timeoutMs?: number;
  /**
   * Waits in seconds before each attempt; its length is the number of attempts.
   * @default RETRY_SCHEDULE, [0, 60, 300, 1800, 7200, 28800, 86400]
   */
  schedule?: readonly number[];
  /** Development switch: allows plain `http://` to localhost, 127.0.0.1 and [::1]. @default false */
  allowInsecureUrls?: boolean;
  /**
   * Exceptions to the SSRF rules: host names (reachable whatever they resolve to), IP addresses
   * or CIDR ranges (`10.1.0.0/16`). Does not allow plain http.
   * @default []
   * @example ['receiver.internal', '10.1.0.0/16']
   */
  allowedHosts?: readonly string[];
  /** Resolves host names when URLs are registered and when sockets connect. @default dns.lookup, all addresses */
  resolveHost?: ResolveHost;
  /** Extra CAs to trust (PEM), in addition to Node's public roots. */
  ca?: TrustedCa;
  /** Attempts in flight at once. @default 10 */
  concurrency?: number;
  /** Milliseconds since the epoch; every wait, timestamp and `created` comes from it. @default Date.now */
  clock?: () => number;
  /** A pino logger, or `false` for none. @default pino at info to stderr */
  logger?: Logger | false;
  /** Manual retries allowed per window. @default { max: 50, windowMs: 900_000 } */
  manualRetryLimit?: RateLimit;
  /** The longest the worker sleeps before looking for work saved by other processes. @default 1_000 */
  pollIntervalMs?: number;
  /**
   * How long a worker's claim on an attempt lasts, in `clock` milliseconds; when it runs out the
   * attempt counts as abandoned and is made again. Raise it with a clock that runs faster than
   * real time (a time-scaled demo or test), so that an attempt still in flight is never
   * taken over. @default timeoutMs + 15_000
   */
  leaseMs?: number;
}

/** The options in effect, after defaults; `dispatcher.settings`. */
export interface DispatcherSettings {
  /** The SQLite file, or `null` when a database object or a custom storage was given. */
  database: string | null;
  timeoutMs: number;
  schedule: readonly number[];
  allowInsecureUrls: boolean;
  allowedHosts: readonly string[];
  concurrency: number;
  manualRetryLimit: Readonly<RateLimit>;
  pollIntervalMs: number;
  leaseMs: number;
}

const KNOWN_OPTIONS: ReadonlySet<string> = new Set<keyof DispatcherOptions>([
  'database',
  'timeoutMs',
  'schedule',
  'allowInsecureUrls',
  'allowedHosts',
  'resolveHost',
  'ca',
  'concurrency',
  'clock',
  'logger',
  'manualRetryLimit',
  'pollIntervalMs',
  'leaseMs',
]);

/** Node's timers overflow above this. */
const MAX_TIMER_MS = 2_147_483_647;

/** Applies defaults and checks every option; all problems surface here, when the Dispatcher is built. */
export function resolveSettings(options: DispatcherOptions): DispatcherSettings {
  if (typeof options !== 'object' || options === null) throw invalid('options', 'must be an object', options);
  const unknown = Object.keys(options).filter((key) => !KNOWN_OPTIONS.has(key));
  if (unknown.length > 0) throw invalid(unknown[0]!, `is not an option (known: ${[...KNOWN_OPTIONS].join(', ')})`, undefined);
  checkFunctions(options);
  checkLogger(options.logger);
  checkCa(options.ca);
  const timeoutMs = number('timeoutMs', options.timeoutMs ?? DELIVERY_TIMEOUT_MS, { min: 1, max: MAX_TIMER_MS });
  return {
    database: typeof options.database === 'string' || options.database === undefined ? (options.database ?? DEFAULT_DATABASE_FILE) : null,
    timeoutMs,
    schedule: checkSchedule(options.schedule ?? RETRY_SCHEDULE),
    allowInsecureUrls: boolean('allowInsecureUrls', options.allowInsecureUrls ?? false),
    allowedHosts: Object.freeze([...stringList('allowedHosts', options.allowedHosts ?? [])]),
    concurrency: number('concurrency', options.concurrency ?? DEFAULT_CONCURRENCY, { min: 1, max: 10_000, integer: true }),
    manualRetryLimit: checkRateLimit(options.manualRetryLimit ?? MANUAL_RETRY_LIMIT),
    pollIntervalMs: number('pollIntervalMs', options.pollIntervalMs ?? MAX_IDLE_MS, { min: 1, max: 60_000 }),
    leaseMs: number('leaseMs', options.leaseMs ?? timeoutMs + DISPATCH_LEASE_MARGIN_MS, { min: timeoutMs, max: Number.MAX_SAFE_INTEGER }),
  };
}

export function resolveClock(clock: (() => number) | undefined): () => number {
  return clock ?? Date.now;
}

export function resolveHostResolver(resolveHost: ResolveHost | undefined): ResolveHost {
  return resolveHost ?? resolveWithSystem;
}

/** Opens the configured storage; `owned` says whether `close()` should close it. */
export function openStorage(database: DispatcherOptions['database']): { storage: DispatchStorage; owned: boolean } {
  if (database === undefined || typeof database === 'string') {
    if (database === '') throw invalid('database', 'must be a file path, a better-sqlite3 Database or a DispatchStorage', database);
    return { storage: new SqliteDispatchStorage(database ?? DEFAULT_DATABASE_FILE), owned: true };
  }
  if (isDispatchStorage(database)) return { storage: database, owned: false };
  if (isSqliteDatabase(database)) return { storage: new SqliteDispatchStorage(database), owned: true };
  throw invalid('database', 'must be a file path, a better-sqlite3 Database or a DispatchStorage', '(object)');
}

function isDispatchStorage(value: object): value is DispatchStorage {
  const candidate = value as Partial<Record<keyof DispatchStorage, unknown>>;
  return typeof candidate.claimDue === 'function' && typeof candidate.recordAttempt === 'function' && typeof candidate.init === 'function';
}

function isSqliteDatabase(value: object): value is Database {
  const candidate = value as { prepare?: unknown; pragma?: unknown; transaction?: unknown };
  return typeof candidate.prepare === 'function' && typeof candidate.pragma === 'function' && typeof candidate.transaction === 'function';
}

function checkFunctions(options: DispatcherOptions): void {
  if (options.resolveHost !== undefined && typeof options.resolveHost !== 'function') {
    throw invalid('resolveHost', 'must be a function (hostname) => Promise<string[]>', typeof options.resolveHost);
  }
  if (options.clock === undefined) return;
  if (typeof options.clock !== 'function') throw invalid('clock', 'must be a function returning ms since the epoch', typeof options.clock);
  const now = options.clock();
  if (!Number.isFinite(now) || now < 0) throw invalid('clock', 'must return a non-negative number of ms since the epoch', now);
}

function checkLogger(logger: unknown): void {
  if (logger === undefined || logger === false) return;
  const methods = typeof logger === 'object' && logger !== null ? (logger as Record<string, unknown>) : {};
  const usable = ['child', 'info', 'warn', 'error'].every((method) => typeof methods[method] === 'function');
  if (!usable) throw invalid('logger', 'must be a pino logger or false', typeof logger);
}

function checkCa(ca: unknown): void {
  if (ca === undefined) return;
  const entries = Array.isArray(ca) ? (ca as unknown[]) : [ca];
  if (!entries.every((entry) => typeof entry === 'string' || Buffer.isBuffer(entry))) {
    throw invalid('ca', 'must be PEM text or a Buffer, or a list of them', typeof ca);
  }
}

function checkSchedule(schedule: unknown): readonly number[] {
  const valid =
    Array.isArray(schedule) &&
    schedule.length > 0 &&
    schedule.every((wait) => typeof wait === 'number' && Number.isFinite(wait) && wait >= 0 && wait * 1000 <= Number.MAX_SAFE_INTEGER);
  if (!valid) throw invalid('schedule', 'must be a non-empty array of waits in seconds (numbers ≥ 0)', schedule);
  return Object.freeze([...(schedule as number[])]);
}

function checkRateLimit(limit: unknown): Readonly<RateLimit> {
  const candidate = limit as Partial<RateLimit> | null;
  if (typeof candidate !== 'object' || candidate === null) throw invalid('manualRetryLimit', 'must be { max, windowMs }', limit);
  return Object.freeze({
    max: number('manualRetryLimit.max', candidate.max, { min: 1, max: 1_000_000, integer: true }),
    windowMs: number('manualRetryLimit.windowMs', candidate.windowMs, { min: 1, max: Number.MAX_SAFE_INTEGER }),
  });
}

function number(option: string, value: unknown, range: { min: number; max: number; integer?: boolean }): number {
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    value >= range.min &&
    value <= range.max &&
    (!range.integer || Number.isInteger(value));
  if (!ok) throw invalid(option, `must be ${range.integer ? 'an integer' : 'a number'} from ${range.min} to ${range.max}`, value);
  return value;
}

function boolean(option: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw invalid(option, 'must be true or false', value);
  return value;
}

function stringList(option: string, value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string')) {
    throw invalid(option, 'must be an array of strings', value);
  }
  return value;
}

function invalid(option: string, problem: string, value: unknown): ConfigurationError {
  void value;
  return new ConfigurationError({ option, reason: problem }, `Dispatcher option ${option} ${problem}`);
}
