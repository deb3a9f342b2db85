import { boolean, callable, checkOptions, custom, instanceOf, list, literal, numberIn, oneOf, optional, strictObject, string, union } from '../kernel/options-check.js';
import { ConfigurationError, WebhookVerificationError } from '../kernel/errors.js';
import { isLogger, resolveLogger, type Logger, type LoggerOption } from '../logging/logger.js';
import { DEFAULT_TOLERANCE_SECONDS, type HmacEngine, type WebhookSecret } from '../signing/signature-scheme.js';
import type { StandardKeyEngine } from '../signing/standard-webhooks-scheme.js';
import { deriveKeys, type SecretKeys } from './secret-keys.js';
import {
  DEFAULT_SECRET_CACHE_MAX_ENTRIES,
  DEFAULT_SECRET_CACHE_TTL_MS,
  DEFAULT_SECRET_TIMEOUT_MS,
  SecretResolver,
  type SecretCacheOptions,
  type WebhookSecretLookup,
} from './secret-lookup.js';
import type { ReceiverScheme } from './verify-request.js';
import type { IdempotencyStore } from '../ports/idempotency-store.js';
import { inboxSettings, inboxShape, type InboxOptions, type InboxSettings } from './inbox-options.js';
import { orderingGuard, orderingShape, type OrderingGuard, type OrderingOptions } from './ordering.js';
import { isMeter, type MetricsOptions } from '../metrics/meter.js';
import { withReceiverMetrics } from '../metrics/receiver-metrics.js';
import type { ReceiveOutcome } from './outcome.js';
import { Webhooks } from './webhooks.js';
import { MAX_TIMER_MS } from '../kernel/timers.js';

/** The path `webhookHandler` and `nodeHandler` answer on when mounted with `app.use`. */
export const DEFAULT_PATH = '/webhooks';
/** Bodies over 1 MiB are refused with 413 before they are read to the end. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/**
 * The handlers' budget: under the platform's 30 s acknowledge limit, so the receiver answers
 * (503, retry) before the sender gives up.
 */
export const DEFAULT_HANDLER_TIMEOUT_MS = 25_000;
/** A body that has not fully arrived after this long is cut off with 408 (a slow-trickling client). */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;
/** A claim outlives the handler budget by this much before another delivery may take it over. */
export const LEASE_MARGIN_MS = 5_000;
/** The headers a receiver checks when no `scheme` is given: the platform's `x-svc-signature`. */
export const DEFAULT_RECEIVER_SCHEME: ReceiverScheme = 'svc';

/** The options of the framework-free receiver, {@link createReceiver}. */
export interface ReceiverOptions {
  /**
   * The webhook secret (`whsec_…`), or a list while rotating: any one of them verifies. With
   * Standard Webhooks, a `whpk_…` ed25519 public key verifies `v1a` signatures. A receiver for
   * many businesses gives a function instead, told each delivery's path, headers and (unverified)
   * `businessId`, that returns its secret or list — or `undefined` for a business it does not know
   * (401 `UNKNOWN_BUSINESS`); one that throws or is slower than `secretTimeoutMs` is a 503
   * `SECRET_UNAVAILABLE`. See docs/receiver.md.
   *
   * @example secret: async ({ businessId }) => businessId && (await db.secretOf(businessId))
   */
  secret: WebhookSecret | WebhookSecretLookup;
  /**
   * With a `secret` function: how many of its answers are kept and for how long, keyed by the
   * delivery's path and `businessId` (not its headers), or `false` to call it for every delivery.
   * An `undefined` answer or a failure is never kept. Refused with a fixed secret.
   * @default { maxEntries: 10_000, ttlMs: 60_000 }
   */
  secretCache?: false | SecretCacheOptions | undefined;
  /**
   * With a `secret` function: how long it may take; past it the delivery is answered 503
   * `SECRET_UNAVAILABLE` (the sender retries), and a late answer still fills the cache. Refused
   * with a fixed secret.
   * @default 5_000
   */
  secretTimeoutMs?: number | undefined;
  /**
   * Which signature headers are checked: `'svc'` (the platform's `x-svc-signature` and
   * `x-svc-timestamp`), `'standard-webhooks'` (`webhook-id`, `webhook-timestamp`,
   * `webhook-signature` with `v1` and `v1a`), or `'any'`: Standard Webhooks when the request has
   * `webhook-signature` or `webhook-id` and no `x-svc-signature`, else the platform's. See docs/verification.md.
   * @default 'svc'
   */
  scheme?: ReceiverScheme | undefined;
  /** The handlers to run. Without them every valid event is acknowledged and logged. */
  handlers?: Webhooks | undefined;
  /**
   * Where handled event ids are remembered: a store from `sqliteStore`, `memoryStore` or
   * `postgresStore`. A store you pass is yours to close; `close()` closes only a store the
   * receiver opened itself. Give `store` or `database`, not both.
   * @default sqliteStore('./webhook-events.db')
   */
  store?: IdempotencyStore | undefined;
  /**
   * A SQLite file for the default store: shorthand for `store: sqliteStore(database)`.
   * @default './webhook-events.db'
   */
  database?: string | undefined;
  /** How far `x-svc-timestamp` may be from now, either way, in seconds. @default 300 */
  toleranceSeconds?: number | undefined;
  /**
   * The handlers' budget per delivery in direct mode; past it the answer is 503 and the sender
   * retries. Refused together with `inbox`: inbox mode's budget is `inbox.handlerTimeoutMs`.
   * @default 25_000
   */
  handlerTimeoutMs?: number | undefined;
  /** A logger (pino or anything with the same four levels and `child`), or `false` for silence. @default JSON lines in pino's format at info to stderr (built in) */
  logger?: LoggerOption | undefined;
  /**
   * Called once for every delivery, after its answer is decided, with what happened: the
   * outcome, the status, the error code, the event, the handlers' results, the duration, and
   * the raw body. The one log line per delivery is written from the same report. What the hook
   * throws is logged and changes nothing.
   *
   * @example
   * onOutcome: (o) => metrics.increment(`webhooks.${o.outcome}`)
   */
  onOutcome?: ((outcome: ReceiveOutcome) => void) | undefined;
  /**
   * Also accept `x-service-signature: sha256=<hex>` (the body alone, no timestamp) when
   * `x-svc-signature` is absent. It has no replay protection: a captured request stays valid
   * forever. @default false
   */
  legacySignature?: boolean | undefined;
  /**
   * A valid signature on an event type this version does not know: `'acknowledge'` answers 200
   * (and keeps it in quarantine), `'reject'` answers 422 so the sender retries.
   * @default 'acknowledge'
   */
  onUnknownEvent?: 'acknowledge' | 'reject' | undefined;
  /** Milliseconds since the epoch. @default Date.now */
  clock?: (() => number) | undefined;
  /**
   * Inbox mode: a valid event is stored (in the same durable write that dedupes its id) and
   * answered 200 with `queued: true`; a background worker then runs the handlers, with retries
   * and a `dead` state instead of the sender's 30 s limit. Needs a store with an inbox
   * (`sqliteStore`, `postgresStore`, `memoryStore`). See docs/inbox.md.
   * @default false (direct mode: the handlers run inside the delivery's request)
   * @example inbox: { concurrency: 4, handlerTimeoutMs: 120_000 }
   */
  inbox?: boolean | InboxOptions | undefined;
  /**
   * The ordering guard: remembers per object the newest event handled and skips (or flags with
   * `context.stale`) an older one that arrives later; in inbox mode one object's events also
   * run one at a time, oldest first. See docs/inbox.md.
   * @default false
   * @example ordering: { onStale: 'run' }
   */
  ordering?: boolean | OrderingOptions | undefined;
  /**
   * Counts deliveries by outcome through an OpenTelemetry meter (`acct_webhook.receiver.*`);
   * without it nothing is measured.
   * @example metrics: { meter: metrics.getMeter('acct-webhook') }
   */
  metrics?: MetricsOptions | undefined;
}

/** The options of the adapters (`webhookHandler`, `nodeHandler`, `fetchHandler`): the receiver's, and how the body is read. */
export interface WebhookHandlerOptions extends ReceiverOptions {
  /** The path answered when mounted with `app.use` (or as a node:http handler). @default '/webhooks' */
  path?: string | undefined;
  /** @default 1_048_576 (1 MiB) */
  maxBodyBytes?: number | undefined;
  /** @default 10_000 */
  bodyTimeoutMs?: number | undefined;
}

/** The receiver's options after defaults; internal. */
export interface ResolvedReceiverOptions {
  /** The keys of a fixed secret, made once when the factory ran; undefined with a secret function. */
  keys: SecretKeys | undefined;
  /** The keys chosen per delivery by the secret function; undefined with a fixed secret. */
  secretLookup: SecretResolver | undefined;
  handlers: Webhooks;
  store: IdempotencyStore;
  /** The receiver opened the store itself, so `close()` closes it. */
  ownsStore: boolean;
  toleranceSeconds: number;
  handlerTimeoutMs: number;
  logger: Logger;
  logging: boolean;
  onOutcome: ((outcome: ReceiveOutcome) => void) | undefined;
  legacySignature: boolean;
  onUnknownEvent: 'acknowledge' | 'reject';
  clock: () => number;
  /** Inbox mode's settings; undefined in direct mode. */
  inbox: InboxSettings | undefined;
  /** The ordering guard; undefined when off. */
  ordering: OrderingGuard | undefined;
  scheme: ReceiverScheme;
  /**
   * False: inbox mode stores events and runs no worker (another process serving the same store
   * runs them: the CLI's catch-up). Internal; absent everywhere else.
   */
  inboxWorker?: false | undefined;
}

/** How an adapter reads the body; internal. */
export interface BodyOptions {
  path: string;
  maxBodyBytes: number;
  bodyTimeoutMs: number;
}

const nonEmptySecret = string('must be the whsec_… secret (a non-empty string)', { minLength: [1, 'must not be empty'] });

const fixedSecret = union(nonEmptySecret, list(nonEmptySecret, 'must be the whsec_… secret or a non-empty list of them', [1, 'must not be an empty list']), 'must be the whsec_… secret or a non-empty list of them');

const receiverShape = {
  secret: union(
    fixedSecret,
    callable<WebhookSecretLookup>('({ path, headers, businessId }) => the secret, a list, or undefined'),
    'must be the whsec_… secret, a non-empty list of them, or a function ({ path, headers, businessId }) => secret',
  ),
  secretCache: optional(
    union(
      literal(false, 'must be false'),
      strictObject({ maxEntries: optional(numberIn(1, Number.MAX_SAFE_INTEGER, { integer: true })), ttlMs: optional(numberIn(1, Number.MAX_SAFE_INTEGER)) }, { message: 'must be { maxEntries, ttlMs }' }),
      'must be false or { maxEntries, ttlMs }',
    ),
  ),
  secretTimeoutMs: optional(numberIn(1, MAX_TIMER_MS, { integer: true })),
  scheme: optional(oneOf(['svc', 'standard-webhooks', 'any'], "must be 'svc', 'standard-webhooks' or 'any'")),
  handlers: optional(instanceOf(Webhooks, 'a Webhooks instance: new Webhooks().on(…)')),
  store: optional(custom<IdempotencyStore>(isStore, 'must be a store from sqliteStore(), memoryStore() or postgresStore()')),
  database: optional(string('must be a SQLite file path', { trim: true, minLength: [1, 'must be a SQLite file path'] })),
  toleranceSeconds: optional(numberIn(0, Number.MAX_SAFE_INTEGER)),
  handlerTimeoutMs: optional(numberIn(1, MAX_TIMER_MS, { integer: true })),
  logger: optional(union(literal(false, 'must be false'), custom<Logger>(isLogger), 'must be a logger (pino, or debug/info/warn/error/child) or false')),
  onOutcome: optional(callable<(outcome: ReceiveOutcome) => void>('(outcome) => void')),
  legacySignature: optional(boolean('must be true or false')),
  onUnknownEvent: optional(oneOf(['acknowledge', 'reject'], "must be 'acknowledge' or 'reject'")),
  clock: optional(callable<() => number>('returning milliseconds since the epoch')),
  inbox: optional(inboxShape),
  ordering: optional(orderingShape),
  metrics: optional(strictObject({ meter: custom<MetricsOptions['meter']>(isMeter, 'must be an OpenTelemetry Meter') }, { message: 'must be { meter }' })),
};

const bodyShape = {
  path: optional(string('must be a path starting with "/"', { prefix: ['/', 'must start with "/"'] })),
  maxBodyBytes: optional(numberIn(1, Number.MAX_SAFE_INTEGER, { integer: true })),
  bodyTimeoutMs: optional(numberIn(1, MAX_TIMER_MS)),
};

const ONE_STORE = {
  accepts: (options: { store?: unknown; database?: unknown }) => options.store === undefined || options.database === undefined,
  path: 'database',
  message: 'give store or database, not both',
};

const receiverSchema = strictObject(receiverShape, { refine: ONE_STORE });
/** The adapters' options check; exported for test/kernel/options-check.test.ts. */
export const handlerOptionsCheck = strictObject({ ...receiverShape, ...bodyShape }, { refine: ONE_STORE });

type ParsedReceiverOptions = ReturnType<typeof receiverSchema>;

/**
 * Opens the store of a receiver given none (`database` is its option, when given). The entry
 * points choose it (src/platform/node.ts): the receiver itself knows no backend.
 */
export type OpenDefaultStore = (database: string | undefined) => IdempotencyStore;

/**
 * What the entry points choose for a receiver and the core does not know: the store when none
 * is given, and how an HMAC is computed. On Node.js: a SQLite file and node:crypto
 * (src/platform/node.ts); in acct-webhook/web: no default store and WebCrypto.
 */
export interface ReceiverPlatform {
  openDefaultStore: OpenDefaultStore;
  hmac: HmacEngine;
  /** How Standard Webhooks' `v1` and `v1a` signatures are checked: node:crypto or WebCrypto. */
  standard: StandardKeyEngine;
}

/** Accepts `secret`, `[secret, previous]` or the options; checks them all when the factory runs. */
export function resolveReceiverOptions(input: WebhookSecret | ReceiverOptions, subject: string, platform: ReceiverPlatform): ResolvedReceiverOptions {
  return withDefaults(checkOptions(receiverSchema, asOptions(input), subject), platform);
}

/** The adapters' options: the receiver's, and how to read the body. */
export function resolveHandlerOptions(
  input: WebhookSecret | WebhookHandlerOptions,
  subject: string,
  platform: ReceiverPlatform,
): { receiver: ResolvedReceiverOptions; body: BodyOptions } {
  const { path, maxBodyBytes, bodyTimeoutMs, ...receiver } = checkOptions(handlerOptionsCheck, asOptions(input), subject);
  const body = {
    path: normalizePath(path ?? DEFAULT_PATH),
    maxBodyBytes: maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    bodyTimeoutMs: bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
  };
  return { receiver: withDefaults(receiver, platform), body };
}

/**
 * Checks the adapters' options (names, types, ranges) without building anything: no store is
 * opened. For the NestJS module, which builds its receiver only when the app is created.
 */
export function checkHandlerOptions(input: WebhookSecret | WebhookHandlerOptions, subject: string): void {
  checkOptions(handlerOptionsCheck, asOptions(input), subject);
}

function asOptions(input: unknown): unknown {
  return typeof input === 'string' || Array.isArray(input) ? { secret: input } : input;
}

function withDefaults(options: ParsedReceiverOptions, platform: ReceiverPlatform): ResolvedReceiverOptions {
  // Inbox mode has a budget of its own, 5 minutes by default, since no sender waits for it; a
  // top-level budget beside it would be ignored (or, taken over, cut the 5 minutes to the 25 s
  // a direct-mode setting was chosen for), so it is refused with the name to use.
  if (options.inbox && options.handlerTimeoutMs !== undefined) {
    throw new ConfigurationError({
      option: 'handlerTimeoutMs',
      reason: 'is the budget of direct mode, which inbox mode does not use: give the budget of an inbox run as inbox.handlerTimeoutMs (default 300_000)',
    });
  }
  const scheme = options.scheme ?? DEFAULT_RECEIVER_SCHEME;
  const clock = options.clock ?? Date.now;
  const secretLookup = secretLookupOf(options, scheme, platform, clock);
  const logger = resolveLogger(options.logger, 'receiver');
  const inbox = options.inbox ? inboxSettings(options.inbox) : undefined;
  const ordering = options.ordering ? orderingGuard(options.ordering) : undefined;
  if (inbox) requireCapability(options.store, 'inbox', 'inbox mode needs a store with an inbox: sqliteStore, postgresStore or memoryStore');
  if (ordering) requireCapability(options.store, 'versions', 'the ordering guard needs a store that keeps object versions: sqliteStore, postgresStore or memoryStore');
  return {
    inbox,
    ordering,
    keys: secretLookup === undefined ? fixedKeys(options.secret as WebhookSecret, scheme, platform) : undefined,
    secretLookup,
    handlers: options.handlers ?? new Webhooks(),
    toleranceSeconds: options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
    handlerTimeoutMs: options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS,
    logger,
    logging: options.logger !== false,
    onOutcome: withReceiverMetrics(options.onOutcome, options.metrics),
    legacySignature: options.legacySignature ?? false,
    onUnknownEvent: options.onUnknownEvent ?? 'acknowledge',
    clock,
    scheme,
    // Opened last, so that a bad option does not leave a file behind.
    ownsStore: options.store === undefined,
    store: options.store ?? platform.openDefaultStore(options.database),
  };
}

/**
 * The resolver of a secret function, with its cache and timeout; undefined for a fixed secret,
 * beside which the function's options are refused.
 */
function secretLookupOf(options: ParsedReceiverOptions, scheme: ReceiverScheme, platform: ReceiverPlatform, clock: () => number): SecretResolver | undefined {
  if (typeof options.secret !== 'function') {
    for (const option of ['secretCache', 'secretTimeoutMs'] as const) {
      if (options[option] !== undefined) throw new ConfigurationError({ option, reason: 'applies only when secret is a function; a fixed secret is neither looked up nor cached' });
    }
    return undefined;
  }
  const cache = options.secretCache;
  return new SecretResolver({
    lookup: options.secret,
    timeoutMs: options.secretTimeoutMs ?? DEFAULT_SECRET_TIMEOUT_MS,
    cache: cache === false ? undefined : { maxEntries: cache?.maxEntries ?? DEFAULT_SECRET_CACHE_MAX_ENTRIES, ttlMs: cache?.ttlMs ?? DEFAULT_SECRET_CACHE_TTL_MS },
    withStandard: scheme !== 'svc',
    engines: platform,
    clock,
  });
}

/** The keys of a fixed secret; one that Standard Webhooks cannot decode (not `whsec_`/`whpk_` base64) is refused when the factory runs. */
function fixedKeys(secret: WebhookSecret, scheme: ReceiverScheme, platform: ReceiverPlatform): SecretKeys {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  try {
    return deriveKeys(secrets, scheme !== 'svc', platform);
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    throw new ConfigurationError({ option: 'secret', reason: `${error.message} (Standard Webhooks reads whsec_ and the base64 of the key, or a whpk_ public key)` });
  }
}

function requireCapability(store: IdempotencyStore | undefined, capability: 'inbox' | 'versions', reason: string): void {
  if (store !== undefined && store[capability] === undefined) throw new ConfigurationError({ option: 'store', reason });
}

function normalizePath(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function isStore(value: unknown): value is IdempotencyStore {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return ['claim', 'complete', 'release', 'close'].every((method) => typeof candidate[method] === 'function');
}
