import Database from 'better-sqlite3';
import express from 'express';
import express4 from 'express4';
import fc from 'fast-check';
import type { IncomingMessage, RequestListener } from 'node:http';
import { describe, expect, it } from 'vitest';
import { dashboard, dashboardFetchHandler, dashboardNodeHandler, type DashboardOptions } from '../../src/dashboard/index.js';
import { CSRF_COOKIE } from '../../src/dashboard/csrf.js';
import { MAX_FORM_BYTES } from '../../src/dashboard/http.js';
import type { Logger } from '../../src/index.js';
import { fetchListener } from '../helpers/fetch-server.js';
import { rawRequest } from '../helpers/raw-http.js';
import { withServer } from '../helpers/server.js';
import { BASE, Client, setup } from './fixtures.js';
import { cookieHeader, cookieBytes, pathBelow, queryValue } from './hostile-values.js';

/*
 * Requests of any shape against every adapter on a real server on 127.0.0.1: hostile CSRF
 * cookies and form tokens, dot segments, an unexpected failure inside a request. None may end
 * the process or get through; each gets an answer, and the next request is served.
 */

interface LogLine {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

/** A logger that keeps its lines. */
function keepingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: string) =>
    (fields: object | string, message?: string): void => {
      lines.push(typeof fields === 'string' ? { level, fields: {}, message: fields } : { level, fields: fields as Record<string, unknown>, message: message ?? '' });
    };
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => logger };
  return { logger, lines };
}

/** Options every adapter takes (`authorize` ignores the request). */
type AnyAdapterOptions = DashboardOptions<IncomingMessage> & DashboardOptions<Request>;

interface Adapter {
  name: string;
  /** The dashboard served as a node:http listener, in a host app where the adapter has one. */
  serve(options: AnyAdapterOptions): RequestListener;
  /** Whether it sees the path as the client sent it (a Fetch API runtime resolves dot segments before the handler sees the URL). */
  rawPath: boolean;
  /** Whether an unexpected error goes to the host app's error handler (`next`) rather than the dashboard's 500 page. */
  errorsToNext: boolean;
}

/** Express host apps with a route of their own beside the dashboard. */
function expressApp(mount: (app: express.Express) => void): RequestListener {
  const app = express();
  mount(app);
  app.get('/elsewhere', (_req, res) => void res.send('host app'));
  return app;
}

const ADAPTERS: readonly Adapter[] = [
  { name: 'node:http', serve: (options) => dashboardNodeHandler(options), rawPath: true, errorsToNext: false },
  { name: 'express 5, app.use(dashboard(…))', serve: (options) => expressApp((app) => app.use(dashboard(options))), rawPath: true, errorsToNext: true },
  {
    name: 'express 4, app.use(BASE, dashboard(…))',
    serve: (options) => {
      const app = express4();
      app.use(BASE, dashboard(options));
      app.get('/elsewhere', (_req, res) => void res.send('host app'));
      return app;
    },
    rawPath: true,
    errorsToNext: true,
  },
  { name: 'fetch (served by node:http)', serve: (options) => fetchListener(dashboardFetchHandler(options)), rawPath: false, errorsToNext: false },
];

/** A dispatcher, a receiver and the adapter's dashboard for both, with a logger that keeps its lines. */
async function served(adapter: Adapter, options: Partial<AnyAdapterOptions> = {}) {
  const s = await setup();
  const { logger, lines } = keepingLogger();
  const listener = adapter.serve({ dispatcher: s.dispatcher, receiver: s.receiver, authorize: () => true, basePath: BASE, logger, ...options });
  return { s, listener, lines };
}

describe.each(ADAPTERS)('$name', (adapter) => {
  it('an unexpected error in a request (a dropped table) → 500, one log line with the method and the path (no query); the next request is served', async () => {
    const { s, listener, lines } = await served(adapter);
    const other = new Database(s.eventsDb);
    other.exec('DROP TABLE acct_webhook_events');
    other.close();
    await withServer(listener, async (url) => {
      const page = await fetch(`${url}${BASE}/receiver/events?token=not-for-the-log`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(500);
      if (!adapter.errorsToNext) {
        expect(await page.text()).toContain('Something went wrong');
        const api = await fetch(`${url}${BASE}/receiver/events`);
        expect(await api.json()).toMatchObject({ error: { code: 'INTERNAL_ERROR' } });
      }
      expect(lines[0]).toMatchObject({ level: 'error', message: 'dashboard request failed', fields: { method: 'GET', path: `${BASE}/receiver/events`, err: expect.objectContaining({ name: 'SqliteError' }) } });
      expect(JSON.stringify(lines[0]!.fields)).not.toContain('not-for-the-log');
      expect((await fetch(`${url}${BASE}/webhooks`)).status).toBe(200);
    });
  });

  it('150 hostile CSRF cookies, form tokens, origins, bodies and paths → never a 5xx, nothing registered; a real form still registers', async () => {
    const { s, listener, lines } = await served(adapter);
    await withServer(listener, async (url) => {
      const hostile = fc.record({
        method: fc.constantFrom('GET', 'POST', 'HEAD'),
        path: fc.oneof(fc.constant(`${BASE}/webhooks`), pathBelow(BASE)),
        cookie: fc.option(cookieHeader(CSRF_COOKIE)),
        formToken: fc.oneof(queryValue.map((value) => Buffer.from(value, 'latin1')), cookieBytes),
        origin: fc.option(fc.constantFrom('null', 'http://evil.example', url, 'not a url', '\u00e9')),
      });
      await fc.assert(
        fc.asyncProperty(hostile, async ({ method, path, cookie, formToken, origin }) => {
          const headers: [string, string | Buffer][] = [['accept', 'application/json'], ['content-type', 'application/x-www-form-urlencoded']];
          if (cookie !== null) headers.push(['cookie', cookie]);
          if (origin !== null) headers.push(['origin', Buffer.from(origin, 'utf8')]);
          const body = method === 'POST' ? Buffer.concat([Buffer.from('url=http%3A%2F%2F127.0.0.1%3A9%2Fhooks&events=*&_csrf='), formToken]) : undefined;
          const answer = await rawRequest(url, { method, target: path, headers, ...(body === undefined ? {} : { body }) });
          expect(answer.status, path).toBeLessThan(500);
          expect([201, 303], path).not.toContain(answer.status);
        }),
        { numRuns: 150 },
      );
      expect(await s.dispatcher.webhooks.list()).toEqual([]);
      const client = new Client(url);
      await client.get(`${BASE}/webhooks/new`);
      expect((await client.post(`${BASE}/webhooks`, { url: s.targetUrl, events: 'invoice.*' })).status).toBe(201);
    });
    expect(lines).toEqual([]);
  });

  it('cookies get Secure when a proxy says the request came over https, and not otherwise', async () => {
    const { listener } = await served(adapter);
    await withServer(listener, async (url) => {
      const cookieOf = async (headers: Record<string, string>) => (await fetch(`${url}${BASE}/`, { headers })).headers.get('set-cookie')!.split('; ');
      expect(await cookieOf({ 'x-forwarded-proto': 'https' })).toContain('Secure');
      expect(await cookieOf({ 'x-forwarded-proto': 'https, http' })).toContain('Secure');
      expect(await cookieOf({ forwarded: 'for=192.0.2.1;proto=https;by=203.0.113.9' })).toContain('Secure');
      expect(await cookieOf({})).not.toContain('Secure');
      expect(await cookieOf({ 'x-forwarded-proto': 'http' })).not.toContain('Secure');
    });
  });

});

/* The Fetch API's runtime resolves dot segments (`%2e` too) before a handler sees the URL, for the dashboard and the app's router alike. */
describe.each(ADAPTERS.filter((adapter) => adapter.rawPath))('$name, which sees the path as sent', (adapter) => {
  it('a path with a dot segment (raw or %2e, any case) → 400 INVALID_PATH, before the base path is matched', async () => {
    const { listener } = await served(adapter);
    const paths = [`${BASE}/./deliveries`, `${BASE}/%2e/deliveries`, `${BASE}/webhooks/%2E%2e/deliveries`, `${BASE}/.%2E/elsewhere`, `${BASE}/deliveries\\..\\webhooks`];
    // Mounted at the root, the dashboard sees requests outside its base too: a dot segment there is refused as well, not resolved into the base.
    if (adapter.name !== 'express 4, app.use(BASE, dashboard(…))') paths.push(`/elsewhere/..${BASE}/deliveries`, `/elsewhere/%2e%2e${BASE}/deliveries`, '/elsewhere/.');
    await withServer(listener, async (url) => {
      for (const path of paths) {
        const api = await rawRequest(url, { target: path, headers: [['accept', 'application/json']] });
        expect(api.status, path).toBe(400);
        expect(JSON.parse(api.body), path).toMatchObject({ error: { code: 'INVALID_PATH' } });
        const browser = await rawRequest(url, { target: path, headers: [['accept', 'text/html']] });
        expect(browser.body, path).toContain('Not a page of this dashboard');
      }
      expect((await rawRequest(url, { target: `${BASE}/deliveries` })).status).toBe(200);
      if (adapter.name !== 'node:http') expect((await rawRequest(url, { target: '/elsewhere' })).body).toBe('host app');
    });
  });
});

describe('refusals', () => {
  it('authorize refusing: a browser gets a 403 page saying to sign in again, an API client the envelope', async () => {
    const { listener } = await served(ADAPTERS[0]!, { authorize: () => false });
    await withServer(listener, async (url) => {
      const page = await fetch(`${url}${BASE}/deliveries`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
      expect(page.status).toBe(403);
      expect(page.headers.get('content-type')).toContain('text/html');
      const text = await page.text();
      expect(text).toContain('Sign in to the application again');
      expect(text).not.toContain('/assets/dashboard.css');
      for (const accept of [undefined, '*/*', 'application/json']) {
        const api = await fetch(`${url}${BASE}/deliveries`, { headers: accept === undefined ? {} : { accept } });
        expect(api.headers.get('content-type'), accept).toContain('application/json');
        expect(await api.json(), accept).toEqual({ error: { code: 'FORBIDDEN', message: expect.any(String), details: {} } });
      }
    });
  });
});

describe('the Fetch adapter reads a form within its limit', () => {
  /** A body that never ends, counting what was pulled from it. */
  function endlessBody(): { stream: ReadableStream<Uint8Array>; pulled: () => number; cancelled: () => boolean } {
    let pulled = 0;
    let cancelled = false;
    const chunk = new Uint8Array(16 * 1024).fill(0x61);
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulled += chunk.byteLength;
          controller.enqueue(chunk);
        },
        cancel() {
          cancelled = true;
        },
      },
      { highWaterMark: 0 },
    );
    return { stream, pulled: () => pulled, cancelled: () => cancelled };
  }

  async function board() {
    const s = await setup();
    const { logger, lines } = keepingLogger();
    return { handler: dashboardFetchHandler({ dispatcher: s.dispatcher, authorize: () => true, basePath: BASE, logger }), lines };
  }

  it('a body without a length that never ends → 413 PAYLOAD_TOO_LARGE after at most the limit and one chunk; the stream is cancelled', async () => {
    const { handler, lines } = await board();
    const body = endlessBody();
    const answer = await handler(
      new Request(`http://127.0.0.1${BASE}/webhooks`, { method: 'POST', body: body.stream, duplex: 'half', headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' } }),
    );
    expect(answer.status).toBe(413);
    expect(await answer.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(body.pulled()).toBeLessThanOrEqual(MAX_FORM_BYTES + 16 * 1024);
    expect(body.cancelled()).toBe(true);
    expect(lines).toEqual([]);
  });

  it('a Content-Length over the limit → 413 before a byte is read', async () => {
    const { handler } = await board();
    const body = endlessBody();
    const answer = await handler(
      new Request(`http://127.0.0.1${BASE}/webhooks`, {
        method: 'POST',
        body: body.stream,
        duplex: 'half',
        headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(10 * MAX_FORM_BYTES) },
      }),
    );
    expect(answer.status).toBe(413);
    expect(body.pulled()).toBe(0);
  });

  it('served by node:http: a request that announces 10 MB and sends nothing is answered 413 at once', async () => {
    const s = await setup();
    await withServer(fetchListener(dashboardFetchHandler({ dispatcher: s.dispatcher, authorize: () => true, basePath: BASE, logger: false })), async (url) => {
      const answer = await rawRequest(url, {
        method: 'POST',
        target: `${BASE}/webhooks`,
        headers: [['content-length', String(10 * 1024 * 1024)], ['accept', 'application/json'], ['content-type', 'application/x-www-form-urlencoded']],
      });
      expect(answer.status).toBe(413);
    });
  });
});
