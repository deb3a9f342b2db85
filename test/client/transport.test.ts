import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiConnectionError, ApiError, createClient, DEFAULT_MAX_RETRIES, DEFAULT_RETRY_BASE_DELAY_MS, type Client } from '../../src/client/index.js';
import { close, listen, type RunningServer } from '../helpers/server.js';

/*
 * What the client does when the API does not answer as the sandbox does: a server on 127.0.0.1
 * that answers what each test scripts (5xx, no answer, a proxy's page), counting the requests.
 */

type Script = (request: IncomingMessage, response: ServerResponse, count: number) => void;

let running: RunningServer | null = null;
const requests: { method: string; url: string; authorization: string | undefined }[] = [];

afterEach(async () => {
  if (running !== null) await close(running.server);
  running = null;
  requests.length = 0;
});

async function serve(script: Script): Promise<string> {
  running = await listen((request, response) => {
    requests.push({ method: request.method!, url: request.url!, authorization: request.headers.authorization });
    request.resume();
    request.on('end', () => script(request, response, requests.length));
  });
  return running.url;
}

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
const envelope = (code: string) => ({ error: { code, message: code, details: {} } });
const ME = { data: { id: 'usr_1', email: 'a@example.com', business: { id: 'biz_1', name: 'A', uid_number: 'ATU1' }, subscription: { plan: 'pro', status: 'active' } } };

/** The global fetch, counting the requests the client sends (a request may time out before the server sees it). */
function countedFetch(): { fetch: typeof fetch; count: number } {
  const counted = { count: 0, fetch: (input: string | URL | Request, init?: RequestInit) => (counted.count++, fetch(input, init)) };
  return counted;
}

function clientOf(baseUrl: string, waits: number[], options: Partial<Parameters<typeof createClient>[0]> = {}): Client {
  return createClient({ apiKey: 'sk_test_transport00', baseUrl, logger: false, sleep: (ms) => (waits.push(ms), Promise.resolve()), ...options });
}

describe('retries', () => {
  it(`a GET answered 503 is tried again, ${DEFAULT_MAX_RETRIES} times by default, with exponential backoff and jitter`, async () => {
    const waits: number[] = [];
    const client = clientOf(await serve((_request, response) => json(response, 503, envelope('INTERNAL_ERROR'))), waits);
    await expect(client.me()).rejects.toMatchObject({ code: 'INTERNAL_ERROR', status: 503 });
    expect(requests).toHaveLength(1 + DEFAULT_MAX_RETRIES);
    // Each wait lies in the upper half of its doubled step: 500, 1000, 2000 ms.
    waits.forEach((wait, index) => {
      const step = DEFAULT_RETRY_BASE_DELAY_MS * 2 ** index;
      expect(wait).toBeGreaterThanOrEqual(step / 2);
      expect(wait).toBeLessThanOrEqual(step);
    });
    expect(waits).toHaveLength(DEFAULT_MAX_RETRIES);
  });

  it('the waits are jittered: clients refused together do not come back together', async () => {
    const waits: number[] = [];
    const client = clientOf(await serve((_request, response) => json(response, 429, envelope('RATE_LIMIT_EXCEEDED'), { 'retry-after': '1' })), waits, { maxRetries: 10, retryMaxDelayMs: 4_000 });
    await expect(client.me()).rejects.toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', retryAfterMs: 1_000 });
    expect(waits).toHaveLength(10);
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(1_000);
    // Capped at 4 s: the last seven steps are [2 000, 4 000] ms each; seven equal draws would be a broken jitter.
    expect(waits.slice(3).every((wait) => wait >= 2_000 && wait <= 4_000)).toBe(true);
    expect(new Set(waits.slice(3)).size).toBeGreaterThan(1);
  });

  it('a 503 then a 200: the call resolves with the second answer', async () => {
    const waits: number[] = [];
    const client = clientOf(await serve((_request, response, count) => (count === 1 ? json(response, 503, envelope('INTERNAL_ERROR')) : json(response, 200, ME))), waits);
    expect((await client.me()).id).toBe('usr_1');
    expect(requests).toHaveLength(2);
  });

  it('a POST answered 503 is not tried again: it may have been carried out', async () => {
    const waits: number[] = [];
    const client = clientOf(await serve((_request, response) => json(response, 503, envelope('INTERNAL_ERROR'))), waits);
    await expect(client.webhooks.create({ url: 'https://example.com/x', events: ['*'] })).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
    await expect(client.webhooks.rotateSecret('wh_1')).rejects.toBeInstanceOf(ApiError);
    expect(requests.map((request) => request.method)).toEqual(['POST', 'POST']);
    expect(waits).toEqual([]);
  });

  it('a 4xx other than 429 is never tried again', async () => {
    const waits: number[] = [];
    const client = clientOf(await serve((_request, response) => json(response, 422, envelope('VALIDATION_ERROR'))), waits);
    await expect(client.webhooks.update('wh_1', { events: ['*'] })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', status: 422 });
    expect(requests).toHaveLength(1);
  });

  it('maxRetries: 0 sends once', async () => {
    const client = clientOf(await serve((_request, response) => json(response, 503, envelope('INTERNAL_ERROR'))), [], { maxRetries: 0 });
    await expect(client.me()).rejects.toMatchObject({ status: 503 });
    expect(requests).toHaveLength(1);
  });
});

describe('no answer', () => {
  it('a GET past timeoutMs is TIMEOUT after its retries', async () => {
    const sent = countedFetch();
    const client = clientOf(await serve(() => undefined), [], { timeoutMs: 50, maxRetries: 2, fetch: sent.fetch });
    const error = await client.me().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ApiConnectionError);
    expect(error).toMatchObject({ code: 'TIMEOUT', request: { method: 'GET', path: '/v1/me' } });
    expect(sent.count).toBe(3);
  });

  it('a POST past timeoutMs is TIMEOUT at once, never sent twice', async () => {
    const sent = countedFetch();
    const client = clientOf(await serve(() => undefined), [], { timeoutMs: 50, fetch: sent.fetch });
    await expect(client.webhooks.create({ url: 'https://example.com/x', events: ['*'] })).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(sent.count).toBe(1);
  });

  it('nothing listening is NETWORK_ERROR', async () => {
    const url = await serve(() => undefined);
    await close(running!.server);
    running = null;
    const client = clientOf(url, [], { maxRetries: 1 });
    await expect(client.me()).rejects.toMatchObject({ code: 'NETWORK_ERROR' });
  });

  it('a DELETE whose first answer was lost and whose retry finds nothing has done its work', async () => {
    const client = clientOf(
      await serve((_request, response, count) => (count === 1 ? response.destroy() : json(response, 404, envelope('NOT_FOUND')))),
      [],
    );
    await expect(client.webhooks.delete('wh_1')).resolves.toBeUndefined();
    expect(requests.map((request) => request.method)).toEqual(['DELETE', 'DELETE']);
  });

  it('the caller’s signal aborts the call and its wait', async () => {
    const controller = new AbortController();
    const client = clientOf(await serve((_request, response) => json(response, 503, envelope('INTERNAL_ERROR'))), [], {
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          signal!.addEventListener('abort', () => reject(signal!.reason as Error));
          controller.abort(new Error('stopped by the caller'));
        }),
    });
    await expect(client.me({ signal: controller.signal })).rejects.toThrow('stopped by the caller');
    expect(requests).toHaveLength(1);
  });
});

describe('answers that are not the API’s', () => {
  it('a proxy’s HTML page is INVALID_RESPONSE with its status', async () => {
    const client = clientOf(await serve((_request, response) => response.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>')), [], { maxRetries: 0 });
    await expect(client.me()).rejects.toMatchObject({ code: 'INVALID_RESPONSE', status: 502 });
  });

  it('a 200 that is not JSON is INVALID_RESPONSE', async () => {
    const client = clientOf(await serve((_request, response) => response.writeHead(200).end('not json')), []);
    await expect(client.me()).rejects.toMatchObject({ code: 'INVALID_RESPONSE', status: 200 });
  });

  it('sends the key only as the bearer credential, to the path after /v1', async () => {
    const client = clientOf(await serve((_request, response) => json(response, 200, ME)), []);
    await client.me();
    expect(requests).toEqual([{ method: 'GET', url: '/v1/me', authorization: 'Bearer sk_test_transport00' }]);
  });
});

describe('options, checked when createClient runs', () => {
  it.each([
    ['no key', { baseUrl: 'https://api.example.com' }, 'apiKey', /required/],
    ['a key of another form', { apiKey: 'whsec_abc', baseUrl: 'https://api.example.com' }, 'apiKey', /sk_test_/],
    ['no base URL', { apiKey: 'sk_test_abc' }, 'baseUrl', /required/],
    ['a relative base URL', { apiKey: 'sk_test_abc', baseUrl: 'api.example.com' }, 'baseUrl', /absolute/],
    ['plain http to another host', { apiKey: 'sk_test_abc', baseUrl: 'http://api.example.com' }, 'baseUrl', /https/],
    ['a live key over http to localhost', { apiKey: 'sk_live_abc', baseUrl: 'http://127.0.0.1:4010' }, 'baseUrl', /live key/],
    ['a base URL ending in /v1', { apiKey: 'sk_test_abc', baseUrl: 'https://api.example.com/v1' }, 'baseUrl', /give https:\/\/api\.example\.com$/],
    ['a base URL with a query', { apiKey: 'sk_test_abc', baseUrl: 'https://api.example.com/?key=1' }, 'baseUrl', /query/],
    ['a negative timeout', { apiKey: 'sk_test_abc', baseUrl: 'https://api.example.com', timeoutMs: -1 }, 'timeoutMs', /number/],
    ['too many retries', { apiKey: 'sk_test_abc', baseUrl: 'https://api.example.com', maxRetries: 50 }, 'maxRetries', /0 to 10/],
    ['an unknown option', { apiKey: 'sk_test_abc', baseUrl: 'https://api.example.com', retries: 2 }, 'retries', /not an option/],
  ])('%s → INVALID_CONFIGURATION on %s', (_case, options, option, reason) => {
    expect(() => createClient(options as never)).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: { option, reason: expect.stringMatching(reason) } }));
  });

  it('takes the sandbox’s http://127.0.0.1 and a live key over https', () => {
    expect(createClient({ apiKey: 'sk_test_abc', baseUrl: 'http://127.0.0.1:4010/' }).baseUrl).toBe('http://127.0.0.1:4010');
    expect(createClient({ apiKey: 'sk_live_abc', baseUrl: 'https://api.example.com/api' }).baseUrl).toBe('https://api.example.com/api');
  });
});
