import type { Logger } from '../logging/logger.js';
import { retryWait } from './backoff.js';
import { ApiConnectionError, apiErrorOf, type ApiRequestInfo } from './errors.js';
import type { ValidClientOptions } from './options.js';
import { rateLimitOf, retryAfterOf, type RateLimit } from './rate-limit.js';

/** What one call sends. */
export interface CallInput {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** After `/v1`, e.g. `/webhooks`. */
  path: string;
  query?: URLSearchParams | undefined;
  body?: unknown;
  signal?: AbortSignal | undefined;
}

/** Per-call options. */
export interface RequestOptions {
  /** Aborts the call (and its waits between retries); it rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Methods whose second request does what the first did: retried after no answer or a 5xx. */
const IDEMPOTENT = new Set(['GET', 'PATCH', 'DELETE']);
/** Statuses of a server that may answer the same request in a moment. */
const TRANSIENT_STATUSES = new Set([500, 502, 503, 504]);

type Envelope = { code: string; message: string; details: Record<string, unknown> };

/**
 * Sends calls to the API: the key as a bearer credential, JSON in and out, a time limit per
 * request, retries with backoff (429 always; no answer and 5xx for idempotent calls), and the
 * last X-RateLimit-* headers seen.
 */
export class Transport {
  /** The X-RateLimit-* headers of the latest answer that carried them. */
  rateLimit: RateLimit | null = null;
  readonly #key: string;

  constructor(
    private readonly options: Omit<ValidClientOptions, 'apiKey' | 'logger'>,
    apiKey: string,
    private readonly logger: Logger,
  ) {
    this.#key = apiKey;
  }

  /** The answer's `data` (or the whole body when `whole`), `undefined` for 204. */
  async call(input: CallInput): Promise<unknown> {
    const request: ApiRequestInfo = { method: input.method, path: `/v1${input.path}` };
    const query = input.query === undefined || input.query.size === 0 ? '' : `?${input.query.toString()}`;
    const url = `${this.options.baseUrl}${request.path}${query}`;
    const idempotent = IDEMPOTENT.has(input.method);
    let lostAnswer = false;
    for (let retry = 0; ; retry += 1) {
      input.signal?.throwIfAborted();
      const started = Date.now();
      let response: Response;
      let text: string;
      try {
        ({ response, text } = await this.send(url, input));
      } catch (error) {
        if (input.signal?.aborted === true) throw input.signal.reason;
        const failure = connectionError(error, request, this.options.timeoutMs);
        if (!idempotent || retry >= this.options.maxRetries) throw failure;
        lostAnswer = true;
        await this.wait(retry + 1, null, request, { code: failure.code }, input.signal);
        continue;
      }
      const rateLimit = rateLimitOf(response.headers);
      if (rateLimit !== null) this.rateLimit = rateLimit;
      this.logger.debug({ method: request.method, path: request.path, status: response.status, duration_ms: Date.now() - started, attempt: retry + 1 }, 'API call answered');
      if (response.ok) return this.data(response, text, request, rateLimit);
      const envelope = envelopeOf(text);
      // A DELETE whose first request got no answer may have been carried out by it.
      if (input.method === 'DELETE' && response.status === 404 && lostAnswer) return undefined;
      const retryAfterMs = response.status === 429 ? retryAfterOf(response.headers, envelope?.details, Date.now()) : null;
      const error = apiErrorOf(response.status, envelope, request, rateLimit, retryAfterMs);
      const retriable = response.status === 429 ? (retryAfterMs ?? 0) <= this.options.maxRetryAfterMs : idempotent && TRANSIENT_STATUSES.has(response.status);
      if (!retriable || retry >= this.options.maxRetries) throw error;
      await this.wait(retry + 1, retryAfterMs, request, { status: response.status, code: error.code }, input.signal);
    }
  }

  private async send(url: string, input: CallInput): Promise<{ response: Response; text: string }> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new TimeoutSignal()), this.options.timeoutMs);
    const forward = () => controller.abort(input.signal?.reason);
    input.signal?.addEventListener('abort', forward, { once: true });
    try {
      const headers: Record<string, string> = { authorization: `Bearer ${this.#key}`, accept: 'application/json' };
      if (input.body !== undefined) headers['content-type'] = 'application/json';
      const response = await this.options.fetch(url, {
        method: input.method,
        headers,
        signal: controller.signal,
        ...(input.body === undefined ? {} : { body: JSON.stringify(input.body) }),
      });
      return { response, text: await response.text() };
    } finally {
      clearTimeout(timer);
      input.signal?.removeEventListener('abort', forward);
    }
  }

  private data(response: Response, text: string, request: ApiRequestInfo, rateLimit: RateLimit | null): unknown {
    if (response.status === 204 || text === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw apiErrorOf(response.status, null, request, rateLimit, null);
    }
  }

  private async wait(retry: number, retryAfterMs: number | null, request: ApiRequestInfo, why: Record<string, unknown>, signal: AbortSignal | undefined): Promise<void> {
    const { retryBaseDelayMs, retryMaxDelayMs, sleep } = this.options;
    const waitMs = retryWait({ retry, retryAfterMs, baseDelayMs: retryBaseDelayMs, maxDelayMs: retryMaxDelayMs, random: Math.random });
    this.logger.warn({ method: request.method, path: request.path, ...why, retry, wait_ms: waitMs }, 'API call refused or unanswered; trying again');
    await sleep(waitMs, signal);
  }
}

/** The reason a request is aborted at its time limit (told apart from the caller's abort). */
class TimeoutSignal extends Error {}

function connectionError(error: unknown, request: ApiRequestInfo, timeoutMs: number): ApiConnectionError {
  const reason = error instanceof Error && error.name === 'AbortError' ? (error.cause ?? error) : error;
  if (reason instanceof TimeoutSignal || (error instanceof Error && error.cause instanceof TimeoutSignal)) {
    return new ApiConnectionError('TIMEOUT', `${request.method} ${request.path} got no answer within ${timeoutMs} ms`, request);
  }
  const text = error instanceof Error ? error.message : String(error);
  return new ApiConnectionError('NETWORK_ERROR', `${request.method} ${request.path} got no answer: ${text}`, request, { cause: error });
}

function envelopeOf(text: string): Envelope | null {
  try {
    const body = JSON.parse(text) as { error?: Partial<Envelope> } | null;
    const error = body?.error;
    if (typeof error?.code !== 'string') return null;
    return {
      code: error.code,
      message: typeof error.message === 'string' ? error.message : error.code,
      details: typeof error.details === 'object' && error.details !== null ? error.details : {},
    };
  } catch {
    return null;
  }
}
