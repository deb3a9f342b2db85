import { z } from 'zod';
import { callable, numberIn, parseOptions } from '../configuration.js';
import { isLogger, type LoggerOption } from '../logger.js';
import { DEFAULT_CONCURRENCY, DEFAULT_DATABASE_FILE, DELIVERY_TIMEOUT_MS, DISPATCH_LEASE_MARGIN_MS, MANUAL_RETRY_LIMIT, MAX_IDLE_MS } from './defaults.js';
import type { RateLimit } from './rate-limit.js';
import { RETRY_SCHEDULE } from './schedule.js';
import type { TrustedCa } from './sender.js';
import type { AttemptReport } from './attempt-report.js';
import type { DispatchStore } from './store.js';
import type { ResolveHost } from './url-guard.js';

/** The options of `new Dispatcher()`; every one is checked when the constructor runs. */
export interface DispatcherOptions {
  /**
   * Where registrations, events, the schedule and the delivery log live: a store made by
   * `sqliteDispatchStore()` or `postgresDispatchStore()`, or your own {@link DispatchStore}. It
   * stays open on `close()`. Give `store` or `database`, not both.
   * @example store: postgresDispatchStore(process.env.DATABASE_URL!)
   */
  store?: DispatchStore;
  /**
   * A SQLite file path: short for `store: sqliteDispatchStore(database)`, closed by `close()`.
   * Used when neither `store` nor `database` is given.
   * @default './webhook-dispatch.db'
   */
  database?: string;
  /** Total time per attempt, connect to last byte. @default 30_000 (DELIVERY_TIMEOUT_MS) */
  timeoutMs?: number;
  /**
   * Waits in seconds before each attempt (the platform's document states them in seconds); its
   * length is the number of attempts.
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
  /** A logger (a pino logger fits), or `false` for silence. @default pino JSON lines at info to stderr */
  logger?: LoggerOption;
  /**
   * Called once for every attempt after it is recorded, with the delivery log's row and the
   * delivery's state after it; the one log line per attempt is written from the same report.
   * What the hook throws is logged and changes nothing.
   * @example
   * onAttempt: ({ attempt, delivery }) => metrics.observe(attempt.response_time_ms, { status: delivery.status })
   */
  onAttempt?: (report: AttemptReport) => void;
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
  /** The SQLite file, or `null` when a `store` was given. */
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

/** Node's timers overflow above this. */
const MAX_TIMER_MS = 2_147_483_647;
const STORE_METHODS: readonly (keyof DispatchStore)[] = ['ready', 'close', 'insertEvent', 'claimDue', 'nextDueAt', 'recordAttempt', 'exportAttempts'];

const waitInSeconds = z
  .number({ error: 'must be waits in seconds (numbers ≥ 0)' })
  .min(0, { error: 'must be waits in seconds (numbers ≥ 0)' })
  .max(Number.MAX_SAFE_INTEGER / 1000, { error: 'must be waits in seconds (numbers ≥ 0)' });

const dispatcherOptions = z
  .strictObject({
    store: z
      .custom<DispatchStore>((value) => typeof value === 'object' && value !== null && STORE_METHODS.every((method) => typeof (value as Record<string, unknown>)[method] === 'function'), {
        error: 'must be a DispatchStore: sqliteDispatchStore(…), postgresDispatchStore(…) or one of your own',
      })
      .optional(),
    database: z.string({ error: 'must be a SQLite file path' }).trim().min(1, { error: 'must be a SQLite file path' }).optional(),
    timeoutMs: numberIn(1, MAX_TIMER_MS).optional(),
    schedule: z.array(waitInSeconds, { error: 'must be an array of waits in seconds' }).min(1, { error: 'must have at least one wait' }).readonly().optional(),
    allowInsecureUrls: z.boolean({ error: 'must be true or false' }).optional(),
    allowedHosts: z.array(z.string(), { error: 'must be an array of strings' }).readonly().optional(),
    resolveHost: callable<ResolveHost>('(hostname) => Promise<string[]>').optional(),
    ca: z
      .custom<TrustedCa>((value) => (Array.isArray(value) ? (value as unknown[]) : [value]).every((entry) => typeof entry === 'string' || Buffer.isBuffer(entry)), {
        error: 'must be PEM text or a Buffer, or a list of them',
      })
      .optional(),
    concurrency: numberIn(1, 10_000, { integer: true }).optional(),
    clock: callable<() => number>('returning ms since the epoch')
      .refine((clock) => Number.isFinite(clock()) && clock() >= 0, { error: 'must return a non-negative number of ms since the epoch' })
      .optional(),
    onAttempt: callable<(report: AttemptReport) => void>('(report) => void').optional(),
    logger: z.union([z.literal(false), z.custom<Exclude<LoggerOption, false>>(isLogger)], { error: 'must be a logger (debug, info, warn, error, child) or false' }).optional(),
    manualRetryLimit: z
      .strictObject({ max: numberIn(1, 1_000_000, { integer: true }), windowMs: numberIn(1, Number.MAX_SAFE_INTEGER) }, { error: 'must be { max, windowMs }' })
      .optional(),
    pollIntervalMs: numberIn(1, 60_000).optional(),
    leaseMs: numberIn(1, Number.MAX_SAFE_INTEGER).optional(),
  })
  .superRefine((options, context) => {
    if (options.store !== undefined && options.database !== undefined) {
      context.addIssue({ code: 'custom', path: ['database'], message: 'cannot be given with store: give one or neither' });
    }
    const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    if (options.leaseMs !== undefined && options.leaseMs < timeoutMs) {
      context.addIssue({ code: 'custom', path: ['leaseMs'], message: `must be at least timeoutMs (${timeoutMs}): an attempt still in flight would be taken over` });
    }
  });

export type ValidDispatcherOptions = z.output<typeof dispatcherOptions>;

/** Checks every option; all problems surface here, when the Dispatcher is built. */
export function parseDispatcherOptions(options: DispatcherOptions): ValidDispatcherOptions {
  return parseOptions(dispatcherOptions, options, 'Dispatcher');
}

/** The options in effect, after defaults. */
export function settingsOf(options: ValidDispatcherOptions): DispatcherSettings {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  return {
    database: options.store === undefined ? (options.database ?? DEFAULT_DATABASE_FILE) : null,
    timeoutMs,
    schedule: Object.freeze([...(options.schedule ?? RETRY_SCHEDULE)]),
    allowInsecureUrls: options.allowInsecureUrls ?? false,
    allowedHosts: Object.freeze([...(options.allowedHosts ?? [])]),
    concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
    manualRetryLimit: Object.freeze({ ...(options.manualRetryLimit ?? MANUAL_RETRY_LIMIT) }),
    pollIntervalMs: options.pollIntervalMs ?? MAX_IDLE_MS,
    leaseMs: options.leaseMs ?? timeoutMs + DISPATCH_LEASE_MARGIN_MS,
  };
}
