import { z } from 'zod';
import { callable, numberIn, parseOptions } from '../kernel/configuration.js';
import { isLogger, type LoggerOption } from '../logging/logger.js';
import { isMeter, type MetricsOptions } from '../metrics/meter.js';
import type { WebhookAlert } from './alerts.js';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_DATABASE_FILE,
  DEFAULT_MAX_IN_FLIGHT_PER_FAILING_WEBHOOK,
  DEFAULT_MAX_IN_FLIGHT_PER_WEBHOOK,
  DELIVERY_TIMEOUT_MS,
  DISABLE_FAILING_AFTER_MS,
  DISPATCH_LEASE_MARGIN_MS,
  DEFAULT_DELIVERY_RETENTION_MS,
  FAILURE_WARNINGS,
  INITIAL_IN_FLIGHT_PER_WEBHOOK,
  MANUAL_RETRY_LIMIT,
  MAX_IDLE_MS,
} from './dispatcher-defaults.js';
import type { RateLimit } from './rate-limit.js';
import { RETRY_SCHEDULE } from './schedule.js';
import type { TrustedCa } from './sender.js';
import type { AttemptReport } from './attempt-report.js';
import type { DispatchStore } from '../ports/dispatch-store.js';
import type { ResolveHost } from './url-guard.js';
import { MAX_TIMER_MS } from '../kernel/timers.js';

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
  /**
   * Attempts in flight at once, in this process. A receiver that starts to hang holds its fair
   * share of them until its first timeout, then `maxInFlightPerFailingWebhook`.
   * @default 50
   */
  concurrency?: number;
  /**
   * Attempts in flight per webhook, over every worker on the store: what one receiver can hold
   * of the pool. Claims are fair: the webhook with the fewest attempts in flight is served first.
   * @default 50
   */
  maxInFlightPerWebhook?: number;
  /**
   * Attempts in flight of a webhook whose last attempt failed, until one is delivered: a receiver
   * that hangs costs this many slots. At most `maxInFlightPerWebhook`. @default 1
   */
  maxInFlightPerFailingWebhook?: number;
  /**
   * Slow start: a webhook may have this many attempts in flight, plus one per attempt delivered in
   * a row (up to `maxInFlightPerWebhook`), so a new receiver that hangs from the start holds this
   * many slots until its first timeout. At most `maxInFlightPerWebhook`. @default 2
   */
  initialInFlightPerWebhook?: number;
  /**
   * A webhook whose attempts have all failed for this long (from the first failed attempt of the
   * streak to the latest) is disabled: nothing more is sent to it, new events for it are recorded
   * as skipped, and `webhooks.enable(id, { replay: true })` sends them later. `false`: never.
   * @default 259_200_000 (72 h: two retry windows of 34.6 h, and a weekend)
   */
  disableFailingAfterMs?: number | false;
  /** Shares of `disableFailingAfterMs` at which a failing webhook is warned about. @default [0.5, 0.9] */
  failureWarnings?: readonly number[];
  /**
   * Called when a webhook has been failing for a share of the stretch (`webhook.failing`) and when
   * it is disabled (`webhook.disabled`); each is also logged (warn, error). What it throws is
   * logged and changes nothing.
   * @example
   * onWebhookAlert: (alert) => pager.notify(`${alert.type}: ${alert.url}, failing since ${alert.failing_since}`)
   */
  onWebhookAlert?: (alert: WebhookAlert) => void;
  /**
   * Also send each alert as a signed webhook (POST, `x-svc-signature` with `secret`, the same
   * scheme as every delivery) to an operator's URL; one attempt each, a failure is logged.
   * @example alertWebhook: { url: 'https://ops.example.com/acct-webhook-alerts', secret: process.env.ALERT_SECRET! }
   */
  alertWebhook?: { url: string; secret: string };
  /**
   * Instruments the dispatcher through an OpenTelemetry meter; without it nothing is measured.
   * `perWebhook: true` adds the webhook id to the attempt series and reports each webhook's state
   * (one series per webhook: mind the cardinality). @default undefined
   * @example metrics: { meter: metrics.getMeter('acct-webhook') }
   */
  metrics?: MetricsOptions & { perWebhook?: boolean };
  /**
   * Milliseconds since the epoch; every wait, every `created`, `attempted_at` and the failure
   * stretch of the disable rule come from it, and, unless `signingClock` is given, the
   * `x-svc-timestamp` of every attempt. @default Date.now
   */
  clock?: () => number;
  /**
   * Milliseconds since the epoch for the `x-svc-timestamp` a request is signed with (attempts and
   * alerts): the time a receiver checks against its freshness window (300 s by default). Give the
   * wall clock (`Date.now`) when `clock` simulates time — a sandbox, a time-scaled test — so that
   * receivers on the wall clock accept what is sent, as they accept the platform's.
   * @default the `clock` option
   * @example new Dispatcher({ clock: simulated.now, signingClock: Date.now })
   */
  signingClock?: () => number;
  /** A logger (a pino logger fits), or `false` for silence. @default JSON lines in pino's format at info to stderr (built in) */
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
  /**
   * How long deliveries that are over (`delivered`, `finally_failed`) are kept, with their
   * attempts and events; pruned in small batches by the running worker (at most hourly) or by
   * `pruneDeliveries()`. Never shorter than the schedule's span (its waits plus a timeout per
   * attempt): a delivery still retrying is never pruned anyway.
   * @default 30 days (DEFAULT_DELIVERY_RETENTION_MS)
   */
  deliveryRetentionMs?: number;
  /**
   * When set, payloads and response bodies are kept this long only (shorter than
   * `deliveryRetentionMs`): once every delivery of an event is over and this old, they are
   * replaced by a marker (`PAYLOAD_REMOVED`) and the metadata stays. @default undefined (kept with the delivery)
   */
  payloadRetentionMs?: number;
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
  maxInFlightPerWebhook: number;
  maxInFlightPerFailingWebhook: number;
  initialInFlightPerWebhook: number;
  /** `null`: failing webhooks are never disabled. */
  disableFailingAfterMs: number | null;
  failureWarnings: readonly number[];
  /** The operator's alert URL, or `null` (the secret is not shown). */
  alertWebhookUrl: string | null;
  manualRetryLimit: Readonly<RateLimit>;
  pollIntervalMs: number;
  leaseMs: number;
  deliveryRetentionMs: number;
  /** `null`: payloads are kept as long as their delivery. */
  payloadRetentionMs: number | null;
}

const STORE_METHODS: readonly (keyof DispatchStore)[] = ['ready', 'close', 'insertEvent', 'claimDue', 'nextDueAt', 'recordAttempt', 'exportAttempts'];

const waitInSeconds = z
  .number({ error: 'must be waits in seconds (numbers ≥ 0)' })
  .min(0, { error: 'must be waits in seconds (numbers ≥ 0)' })
  .max(Number.MAX_SAFE_INTEGER / 1000, { error: 'must be waits in seconds (numbers ≥ 0)' });

const msClock = callable<() => number>('returning ms since the epoch').refine((clock) => Number.isFinite(clock()) && clock() >= 0, {
  error: 'must return a non-negative number of ms since the epoch',
});

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
    maxInFlightPerWebhook: numberIn(1, 10_000, { integer: true }).optional(),
    maxInFlightPerFailingWebhook: numberIn(1, 10_000, { integer: true }).optional(),
    initialInFlightPerWebhook: numberIn(1, 10_000, { integer: true }).optional(),
    disableFailingAfterMs: z.union([z.literal(false), numberIn(1, Number.MAX_SAFE_INTEGER)], { error: 'must be milliseconds (> 0) or false' }).optional(),
    failureWarnings: z
      .array(z.number().gt(0).lt(1), { error: 'must be shares between 0 and 1' })
      .refine((shares) => shares.every((share, i) => i === 0 || share > shares[i - 1]!), { error: 'must be shares between 0 and 1, ascending' })
      .readonly()
      .optional(),
    onWebhookAlert: callable<(alert: WebhookAlert) => void>('(alert) => void').optional(),
    alertWebhook: z
      .strictObject(
        {
          url: z.string().refine((url) => URL.canParse(url), { error: 'must be a URL' }),
          secret: z.string({ error: 'must be the secret the alerts are signed with' }).min(1, { error: 'must not be empty' }),
        },
        { error: 'must be { url, secret }' },
      )
      .optional(),
    metrics: z
      .strictObject(
        { meter: z.custom<MetricsOptions['meter']>(isMeter, { error: 'must be an OpenTelemetry Meter' }), perWebhook: z.boolean({ error: 'must be true or false' }).optional() },
        { error: 'must be { meter, perWebhook? }' },
      )
      .optional(),
    clock: msClock.optional(),
    signingClock: msClock.optional(),
    onAttempt: callable<(report: AttemptReport) => void>('(report) => void').optional(),
    logger: z.union([z.literal(false), z.custom<Exclude<LoggerOption, false>>(isLogger)], { error: 'must be a logger (debug, info, warn, error, child) or false' }).optional(),
    manualRetryLimit: z
      .strictObject({ max: numberIn(1, 1_000_000, { integer: true }), windowMs: numberIn(1, Number.MAX_SAFE_INTEGER) }, { error: 'must be { max, windowMs }' })
      .optional(),
    pollIntervalMs: numberIn(1, 60_000).optional(),
    leaseMs: numberIn(1, Number.MAX_SAFE_INTEGER).optional(),
    deliveryRetentionMs: numberIn(1, Number.MAX_SAFE_INTEGER, { integer: true }).optional(),
    payloadRetentionMs: numberIn(1, Number.MAX_SAFE_INTEGER, { integer: true }).optional(),
  })
  .superRefine((options, context) => {
    if (options.store !== undefined && options.database !== undefined) {
      context.addIssue({ code: 'custom', path: ['database'], message: 'cannot be given with store: give one or neither' });
    }
    const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    const perWebhook = options.maxInFlightPerWebhook ?? DEFAULT_MAX_IN_FLIGHT_PER_WEBHOOK;
    if (options.maxInFlightPerFailingWebhook !== undefined && options.maxInFlightPerFailingWebhook > perWebhook) {
      context.addIssue({ code: 'custom', path: ['maxInFlightPerFailingWebhook'], message: `must be at most maxInFlightPerWebhook (${perWebhook})` });
    }
    if (options.initialInFlightPerWebhook !== undefined && options.initialInFlightPerWebhook > perWebhook) {
      context.addIssue({ code: 'custom', path: ['initialInFlightPerWebhook'], message: `must be at most maxInFlightPerWebhook (${perWebhook})` });
    }
    const span = scheduleSpanMs(options.schedule ?? RETRY_SCHEDULE, timeoutMs);
    const retention = options.deliveryRetentionMs ?? DEFAULT_DELIVERY_RETENTION_MS;
    if (options.deliveryRetentionMs !== undefined && options.deliveryRetentionMs < span) {
      context.addIssue({ code: 'custom', path: ['deliveryRetentionMs'], message: `must be at least the schedule's span (${span} ms: its waits plus a timeout per attempt)` });
    }
    if (options.payloadRetentionMs !== undefined && options.payloadRetentionMs > retention) {
      context.addIssue({ code: 'custom', path: ['payloadRetentionMs'], message: `must be at most deliveryRetentionMs (${retention})` });
    }
    if (options.leaseMs !== undefined && options.leaseMs < timeoutMs) {
      context.addIssue({ code: 'custom', path: ['leaseMs'], message: `must be at least timeoutMs (${timeoutMs}): an attempt still in flight would be taken over` });
    }
  });

/** How long a delivery can go on at most: the schedule's waits, plus a timeout per attempt. */
export function scheduleSpanMs(schedule: readonly number[], timeoutMs: number): number {
  return schedule.reduce((sum, wait) => sum + wait * 1000 + timeoutMs, 0);
}

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
    maxInFlightPerWebhook: options.maxInFlightPerWebhook ?? DEFAULT_MAX_IN_FLIGHT_PER_WEBHOOK,
    maxInFlightPerFailingWebhook: options.maxInFlightPerFailingWebhook ?? Math.min(DEFAULT_MAX_IN_FLIGHT_PER_FAILING_WEBHOOK, options.maxInFlightPerWebhook ?? Infinity),
    initialInFlightPerWebhook: options.initialInFlightPerWebhook ?? Math.min(INITIAL_IN_FLIGHT_PER_WEBHOOK, options.maxInFlightPerWebhook ?? Infinity),
    disableFailingAfterMs: options.disableFailingAfterMs === false ? null : (options.disableFailingAfterMs ?? DISABLE_FAILING_AFTER_MS),
    failureWarnings: Object.freeze([...(options.failureWarnings ?? FAILURE_WARNINGS)]),
    alertWebhookUrl: options.alertWebhook?.url ?? null,
    manualRetryLimit: Object.freeze({ ...(options.manualRetryLimit ?? MANUAL_RETRY_LIMIT) }),
    pollIntervalMs: options.pollIntervalMs ?? MAX_IDLE_MS,
    leaseMs: options.leaseMs ?? timeoutMs + DISPATCH_LEASE_MARGIN_MS,
    deliveryRetentionMs: options.deliveryRetentionMs ?? DEFAULT_DELIVERY_RETENTION_MS,
    payloadRetentionMs: options.payloadRetentionMs ?? null,
  };
}
