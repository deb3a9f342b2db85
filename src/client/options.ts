import { callable, checkOptions, custom, numberIn, optional, strictObject, string } from '../kernel/options-check.js';
import { ConfigurationError } from '../kernel/errors.js';
import { isLogger, type LoggerOption } from '../logging/logger.js';
import { MAX_TIMER_MS } from '../kernel/timers.js';

/** How long one request may take, from sending it to the end of the answer's body. */
export const DEFAULT_CLIENT_TIMEOUT_MS = 30_000;
/** How many times a call is tried again after a 429, or (idempotent calls only) after no answer or a 5xx. */
export const DEFAULT_MAX_RETRIES = 3;
/** The first retry's backoff step; it doubles with each retry. */
export const DEFAULT_RETRY_BASE_DELAY_MS = 500;
/** The largest backoff step. */
export const DEFAULT_RETRY_MAX_DELAY_MS = 30_000;
/** A 429 asking to wait longer than this is not waited for: the call throws {@link ApiRateLimitError} at once. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

/** A `fetch` as the Fetch API defines it (Node.js, Bun, Deno, Workers, browsers). */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** The options of {@link createClient}; every one is checked when it runs, unknown ones refused. */
export interface ClientOptions {
  /**
   * The API key: `sk_test_…` for the sandbox, `sk_live_…` for real data (sent over https only).
   * Sent as `Authorization: Bearer …` and never logged, never put into an error.
   */
  apiKey: string;
  /**
   * The API root, ending just before `/v1`: the platform document's `{base_url}`, e.g.
   * `https://api.example.com`, or the sandbox's `http://127.0.0.1:4010`. Must be https; plain
   * http only for localhost, 127.0.0.1 and ::1.
   */
  baseUrl: string;
  /** Time limit of one request, answer body included. @default 30_000 (DEFAULT_CLIENT_TIMEOUT_MS) */
  timeoutMs?: number;
  /**
   * Retries after a 429 (every call: the API did not carry it out), and for idempotent calls
   * (GET, PATCH, DELETE) after no answer, a timeout, or a 500, 502, 503 or 504. 0 turns them off.
   * @default 3 (DEFAULT_MAX_RETRIES)
   */
  maxRetries?: number;
  /** The first retry's backoff step, doubled each retry. @default 500 (DEFAULT_RETRY_BASE_DELAY_MS) */
  retryBaseDelayMs?: number;
  /** The largest backoff step. @default 30_000 (DEFAULT_RETRY_MAX_DELAY_MS) */
  retryMaxDelayMs?: number;
  /** A 429 whose Retry-After is longer than this throws at once instead of waiting. @default 60_000 (DEFAULT_MAX_RETRY_AFTER_MS) */
  maxRetryAfterMs?: number;
  /** The Fetch API's `fetch` to send with. @default globalThis.fetch */
  fetch?: FetchFunction;
  /**
   * Waits before a retry; resolves after `ms` milliseconds (or rejects when `signal` aborts). For
   * tests that move a fake clock instead of waiting.
   * @default a setTimeout
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * Where retries are logged (`warn`, with method, path, status and wait) and requests
   * (`debug`); never a header, a key or a body. `false` for silence.
   * @default the package's JSON-lines logger on standard error
   */
  logger?: LoggerOption;
}

export interface ValidClientOptions {
  apiKey: string;
  /** Without a trailing slash. */
  baseUrl: string;
  timeoutMs: number;
  maxRetries: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  maxRetryAfterMs: number;
  fetch: FetchFunction;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  logger: LoggerOption | undefined;
}

const KEY = /^sk_(test|live)_[A-Za-z0-9_]+$/;
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const check = strictObject({
  // The reason never repeats the value: it is a secret.
  apiKey: string('must be an API key: sk_test_… or sk_live_…'),
  baseUrl: string('must be the API root, e.g. https://api.example.com', { trim: true }),
  timeoutMs: optional(numberIn(1, MAX_TIMER_MS)),
  maxRetries: optional(numberIn(0, 10, { integer: true })),
  retryBaseDelayMs: optional(numberIn(0, MAX_TIMER_MS)),
  retryMaxDelayMs: optional(numberIn(0, MAX_TIMER_MS)),
  maxRetryAfterMs: optional(numberIn(0, MAX_TIMER_MS)),
  fetch: optional(callable<FetchFunction>('(url, init) => Promise<Response>')),
  sleep: optional(callable<(ms: number, signal?: AbortSignal) => Promise<void>>('(ms, signal) => Promise<void>')),
  logger: optional(custom<LoggerOption>((value) => value === false || isLogger(value), 'must be a logger (debug, info, warn, error, child) or false')),
});

/** @throws ConfigurationError with `{ option, reason }`, never the key itself */
export function parseClientOptions(options: ClientOptions): ValidClientOptions {
  const valid = checkOptions(check, options, 'createClient');
  if (!KEY.test(valid.apiKey)) refuse('apiKey', 'must be an API key: sk_test_… or sk_live_… (letters, digits and _ after the prefix)');
  const baseUrl = checkBaseUrl(valid.baseUrl, valid.apiKey.startsWith('sk_live_'));
  const fetchFunction = valid.fetch ?? (typeof globalThis.fetch === 'function' ? (globalThis.fetch.bind(globalThis)) : undefined);
  if (fetchFunction === undefined) refuse('fetch', 'is required: this runtime has no global fetch');
  return {
    apiKey: valid.apiKey,
    baseUrl,
    timeoutMs: valid.timeoutMs ?? DEFAULT_CLIENT_TIMEOUT_MS,
    maxRetries: valid.maxRetries ?? DEFAULT_MAX_RETRIES,
    retryBaseDelayMs: valid.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS,
    retryMaxDelayMs: valid.retryMaxDelayMs ?? DEFAULT_RETRY_MAX_DELAY_MS,
    maxRetryAfterMs: valid.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS,
    fetch: fetchFunction,
    sleep: valid.sleep ?? sleep,
    logger: valid.logger,
  };
}

function checkBaseUrl(text: string, live: boolean): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse('baseUrl', 'must be an absolute URL, e.g. https://api.example.com');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') refuse('baseUrl', 'must be an https URL');
  if (url.protocol === 'http:' && !LOCAL_HOSTS.has(url.hostname)) refuse('baseUrl', 'must be https: plain http only for localhost, 127.0.0.1 and ::1');
  if (url.protocol === 'http:' && live) refuse('baseUrl', 'must be https for a live key (sk_live_…): a live key never travels over plain http');
  if (url.username !== '' || url.password !== '') refuse('baseUrl', 'must not carry a user or password: the key goes in apiKey');
  if (url.search !== '' || url.hash !== '') refuse('baseUrl', 'must be the API root, without a query or fragment');
  const root = url.href.replace(/\/+$/, '');
  if (/\/v1$/.test(root)) refuse('baseUrl', `ends just before /v1 (the document's {base_url}): give ${root.slice(0, -3)}`);
  return root;
}

function refuse(option: string, reason: string): never {
  throw new ConfigurationError({ option, reason }, `createClient: option ${option} ${reason}`);
}

/** The default wait: a timer, cleared when `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}
