import type { IncomingMessage, ServerResponse } from 'node:http';
import { discardUnread, readNodeBody, type BodyLimits } from '../../http/body.js';
import { HttpBodyError } from '../../http/errors.js';
import { requestPath } from '../../http/path.js';
import { matchRoute } from '../../http/router.js';
import { DispatcherError } from '../../dispatcher/errors.js';
import type { Logger } from '../../logging/logger.js';
import { SandboxError } from '../errors.js';
import { accountOf, authenticate } from './auth.js';
import { rateLimitHeaders, rateLimitOf, type RateLimitState, type WindowCounter } from './rate-limit.js';
import type { SandboxResponse } from './response.js';
import type { Route } from './router.js';

/** Request bodies larger than this are refused. */
export const MAX_REQUEST_BYTES = 1024 * 1024;
/** A request body must have arrived within this many milliseconds. */
export const REQUEST_BODY_TIMEOUT_MS = 10_000;
const BODY_LIMITS: BodyLimits = { maxBytes: MAX_REQUEST_BYTES, timeoutMs: REQUEST_BODY_TIMEOUT_MS };
const DELIVER_PREFIX = '/_sandbox/deliver/';

/** What one account's key reaches: its routes (bound to its data), its own request limits. */
export interface ApiAccount {
  apiKey: string;
  routes: readonly Route[];
  requests: WindowCounter;
  webhookRetries: WindowCounter;
}

export interface ApiServerOptions {
  /** The accounts, the first first; a request is served by the account whose key it carries. */
  accounts: readonly ApiAccount[];
  /** Counts the requests whose key is no account's (so they are limited before they are refused). */
  unknownKeyRequests: WindowCounter;
  /** Before every request that changes state: the frozen clock's tick. */
  beforeChange: () => void;
  /** After every request that changed state: keep the clock's offset. */
  afterChange: () => void;
  deliver: (request: IncomingMessage, response: ServerResponse, dispatcherId: string, body: Buffer) => Promise<void>;
  logger: Logger;
}

/**
 * The sandbox's HTTP handler: the fault proxy's path, then the /v1 API with the document's
 * conventions in this order — the request counted against its key's account (X-RateLimit-* on
 * every answer, 429 past the plan's limit), the key checked (401), the route of that account
 * found (404), the webhook-retry limit, the body read (400 when it is not JSON). Requests that
 * change state run one at a time, in arrival order, whichever account they come from.
 */
export function apiHandler(options: ApiServerOptions): (request: IncomingMessage, response: ServerResponse) => void {
  let changes: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const result = changes.then(work, work);
    changes = result.catch(() => undefined);
    return result;
  };
  const apiKeys = options.accounts.map((account) => account.apiKey);
  return (request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://sandbox.invalid');
      if (request.method === 'POST' && url.pathname.startsWith(DELIVER_PREFIX)) {
        const body = await readBody(request).catch(() => null);
        if (body === null) response.writeHead(400).end();
        else await options.deliver(request, response, url.pathname.slice(DELIVER_PREFIX.length), body);
        return;
      }
      let limit: RateLimitState | undefined;
      let answer: SandboxResponse;
      try {
        const known = accountOf(request.headers.authorization, apiKeys);
        limit = (known === undefined ? options.unknownKeyRequests : options.accounts[known]!.requests).take();
        const account = options.accounts[authenticate(request.headers.authorization, apiKeys)]!;
        // The API's paths have no trailing slash; one sent is not a different endpoint.
        const matched = matchRoute(account.routes, request.method ?? 'GET', requestPath(url.pathname));
        if (matched === undefined || matched === 'method') throw new SandboxError('NOT_FOUND', `No endpoint ${request.method ?? ''} ${url.pathname}`, { method: request.method ?? '', path: url.pathname });
        if (matched.route.webhookRetry) limit = account.webhookRetries.take();
        const body = parseJson(await readBody(request));
        const run = () => Promise.resolve(matched.route.handler({ params: matched.params, query: url.searchParams, body }));
        answer = matched.route.method === 'GET' ? await run() : await exclusive(async () => {
          if (matched.route.path !== '/v1/sandbox/clock') options.beforeChange();
          try {
            return await run();
          } finally {
            options.afterChange();
          }
        });
      } catch (error) {
        limit = rateLimitOf(error) ?? limit;
        answer = errorAnswer(error, options.logger);
      }
      write(response, answer, limit);
      // A body refused before it was read to the end: dropped, not left to stall the connection.
      discardUnread(request);
    })().catch((error: unknown) => {
      options.logger.error({ err: error }, 'sandbox request failed');
      if (!response.headersSent) response.writeHead(500).end();
    });
  };
}

function errorAnswer(error: unknown, logger: Logger): SandboxResponse {
  const known = asSandboxError(error);
  if (known === null) logger.error({ err: error }, 'sandbox request failed');
  const refused = known ?? new SandboxError('INTERNAL_ERROR', 'The sandbox failed to answer; see its log', {});
  const retryAfter = refused.code === 'RATE_LIMIT_EXCEEDED' ? { 'retry-after': String(refused.details.retry_after) } : undefined;
  return { status: refused.status, body: refused.toBody(), ...(retryAfter === undefined ? {} : { headers: retryAfter }) };
}

/** The Dispatcher's refusals in the sandbox's terms. */
function asSandboxError(error: unknown): SandboxError | null {
  if (error instanceof SandboxError) return error;
  if (!(error instanceof DispatcherError)) return null;
  if (error.code === 'NOT_FOUND') return new SandboxError('NOT_FOUND', error.message, error.details);
  if (error.code === 'RATE_LIMIT_EXCEEDED') return new SandboxError('RATE_LIMIT_EXCEEDED', error.message, error.details);
  return null;
}

function write(response: ServerResponse, answer: SandboxResponse, limit: RateLimitState | undefined): void {
  const headers = { ...(limit === undefined ? {} : rateLimitHeaders(limit)), ...answer.headers };
  if (answer.body === undefined) {
    response.writeHead(answer.status, headers).end();
    return;
  }
  const json = JSON.stringify(answer.body);
  response.writeHead(answer.status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) }).end(json);
}

/** The body, read by the HTTP edge; one it could not read is a malformed request (400). */
async function readBody(request: IncomingMessage): Promise<Buffer> {
  try {
    return await readNodeBody(request, BODY_LIMITS);
  } catch (error) {
    if (!(error instanceof HttpBodyError)) throw error;
    const reason = error.code === 'PAYLOAD_TOO_LARGE' ? `the body must be at most ${MAX_REQUEST_BYTES} bytes` : error.message;
    throw SandboxError.validation('', reason, { malformed: true });
  }
}

function parseJson(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw SandboxError.validation('', 'the body must be JSON', { malformed: true });
  }
}
