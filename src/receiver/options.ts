import pino, { type Logger } from 'pino';
import { ConfigurationError } from '../errors.js';
import { DEFAULT_TOLERANCE_SECONDS, type WebhookSecret } from '../signature.js';
import { DEFAULT_STORE_FILE, sqliteStore } from '../sqlite/idempotency-store.js';
import type { IdempotencyStore } from '../store/types.js';
import { Webhooks } from './webhooks.js';

/** Where `app.use(webhookHandler(…))` answers. */
export const DEFAULT_PATH = '/webhooks';
/** Bodies above this get 413 without being read into memory. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** The handler budget: under the sender's 30 s, so a slow handler is answered before the sender gives up. */
export const DEFAULT_HANDLER_TIMEOUT_MS = 25_000;
/** A body that has not fully arrived after this long is cut off with 408 (a slow-trickling client). */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;
/** A claim outlives the handler budget by this much before another delivery may take it over. */
export const LEASE_MARGIN_MS = 5_000;

export interface ReceiverOptions {
  /** The webhook secret (`whsec_…`), or a list while rotating: any one of them verifies. */
  secret: WebhookSecret;
  /** The handlers to run. Without them every valid event is acknowledged and logged. */
  handlers?: Webhooks;
  /** @default sqliteStore('./webhook-events.db') */
  store?: IdempotencyStore;
  /** @default 300 */
  toleranceSeconds?: number;
  /** @default 25_000 */
  handlerTimeoutMs?: number;
  /** A pino logger, or `false` for silence. @default pino() at level info */
  logger?: Logger | false;
  /**
   * Also accept `x-service-signature: sha256=<hex>` (the body alone, no timestamp) when
   * `x-svc-signature` is absent. It has no replay protection: a captured request stays valid
   * forever. @default false
   */
  legacySignature?: boolean;
  /**
   * A valid signature on an event type this version does not know: `'acknowledge'` answers 200
   * (and keeps it in quarantine), `'reject'` answers 422 so the sender retries.
   * @default 'acknowledge'
   */
  onUnknownEvent?: 'acknowledge' | 'reject';
  /** Milliseconds since the epoch. @default Date.now */
  clock?: () => number;
}

export interface WebhookHandlerOptions extends ReceiverOptions {
  /** The path answered when mounted with `app.use` (or as a node:http handler). @default '/webhooks' */
  path?: string;
  /** @default 1 MiB */
  maxBodyBytes?: number;
  /** @default 10_000 */
  bodyTimeoutMs?: number;
}

export interface ResolvedOptions {
  secret: WebhookSecret;
  handlers: Webhooks;
  store: IdempotencyStore;
  toleranceSeconds: number;
  handlerTimeoutMs: number;
  logger: Logger;
  logging: boolean;
  legacySignature: boolean;
  onUnknownEvent: 'acknowledge' | 'reject';
  clock: () => number;
  path: string;
  maxBodyBytes: number;
  bodyTimeoutMs: number;
}

/** Secrets and signatures never reach a log line, whatever a caller passes in. */
export const REDACTED_PATHS = [
  'secret',
  '*.secret',
  'signature',
  '*.signature',
  'headers["x-svc-signature"]',
  'headers["x-service-signature"]',
  '*.headers["x-svc-signature"]',
  '*.headers["x-service-signature"]',
];

const silentLogger = pino({ enabled: false });

/** Accepts `secret`, `[secret, previous]` or the full options; validates when the factory runs. */
export function resolveOptions(input: WebhookSecret | WebhookHandlerOptions): ResolvedOptions {
  const options: WebhookHandlerOptions = typeof input === 'string' || Array.isArray(input) ? { secret: input as WebhookSecret } : (input as WebhookHandlerOptions);
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError({ option: 'secret', reason: 'is required' }, 'Give the webhook secret, a list of secrets, or an options object with `secret`');
  }
  const resolved: Omit<ResolvedOptions, 'store'> = {
    secret: checkSecret(options.secret),
    handlers: checkHandlers(options.handlers),
    toleranceSeconds: nonNegative('toleranceSeconds', options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS),
    handlerTimeoutMs: positive('handlerTimeoutMs', options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS),
    logger: options.logger === false ? silentLogger : (options.logger ?? pino({ name: 'acct-webhook', redact: REDACTED_PATHS })),
    logging: options.logger !== false,
    legacySignature: options.legacySignature ?? false,
    onUnknownEvent: oneOf('onUnknownEvent', options.onUnknownEvent ?? 'acknowledge', ['acknowledge', 'reject'] as const),
    clock: checkClock(options.clock),
    path: checkPath(options.path ?? DEFAULT_PATH),
    maxBodyBytes: positive('maxBodyBytes', options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES),
    bodyTimeoutMs: positive('bodyTimeoutMs', options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS),
  };
  // Opened last, so that a bad option does not leave a file behind.
  return { ...resolved, store: options.store ?? sqliteStore(DEFAULT_STORE_FILE) };
}

function checkSecret(secret: unknown): WebhookSecret {
  const list: unknown[] = Array.isArray(secret) ? secret : [secret];
  if (list.length === 0 || !list.every((s) => typeof s === 'string' && s.length > 0)) {
    throw new ConfigurationError(
      { option: 'secret', reason: 'must be a non-empty string or a non-empty list of them' },
      'The webhook secret is missing or empty: pass the whsec_… secret of the webhook (or a non-empty list of them)',
    );
  }
  return secret as WebhookSecret;
}

function checkHandlers(handlers: unknown): Webhooks {
  if (handlers === undefined) return new Webhooks();
  if (!(handlers instanceof Webhooks)) throw new ConfigurationError({ option: 'handlers', reason: 'must be a Webhooks instance: new Webhooks().on(…)' });
  return handlers;
}

function checkClock(clock: unknown): () => number {
  if (clock === undefined) return Date.now;
  if (typeof clock !== 'function') throw new ConfigurationError({ option: 'clock', reason: 'must be a function returning milliseconds since the epoch' });
  return clock as () => number;
}

function checkPath(path: string): string {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new ConfigurationError({ option: 'path', reason: 'must start with "/"' });
  }
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function positive(name: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ConfigurationError({ option: name, reason: 'must be a positive number' });
  }
  return value;
}

function nonNegative(name: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new ConfigurationError({ option: name, reason: 'must be a non-negative number' });
  }
  return value;
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigurationError({ option: name, reason: `must be one of ${allowed.join(', ')}` });
  }
  return value as T;
}
