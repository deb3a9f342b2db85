import express from 'express';
import express4 from 'express4';
import fc from 'fast-check';
import type { RequestListener } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createPortalLink, portal, portalFetchHandler, portalNodeHandler, type PortalOptions } from '../../src/dashboard/index.js';
import { CSRF_COOKIE } from '../../src/dashboard/csrf.js';
import { PORTAL_SESSION_COOKIE } from '../../src/dashboard/portal-session.js';
import type { Logger } from '../../src/index.js';
import { testDispatcher } from '../dispatcher/fixtures.js';
import { fetchListener } from '../helpers/fetch-server.js';
import { rawRequest } from '../helpers/raw-http.js';
import { withServer } from '../helpers/server.js';
import { Client } from './fixtures.js';
import { cookieBytes, cookieHeader, pathBelow, queryValue } from './hostile-values.js';
import { PORTAL_BASE, PORTAL_KEY } from './portal-fixtures.js';

/*
 * The dashboard's hostile-request suite, against the portal on every adapter over raw TCP:
 * hostile link tokens, session and CSRF cookies, form tokens, origins and paths. None may end the
 * process, get a 5xx, open a session or change anything; afterwards a real link still opens it.
 */

interface Adapter {
  name: string;
  serve(options: PortalOptions): RequestListener;
  rawPath: boolean;
}

const ADAPTERS: readonly Adapter[] = [
  { name: 'node:http', serve: (options) => portalNodeHandler(options), rawPath: true },
  {
    name: 'express 5, app.use(portal(…))',
    serve: (options) => {
      const app = express();
      app.use(portal(options));
      app.get('/elsewhere', (_req, res) => void res.send('host app'));
      return app;
    },
    rawPath: true,
  },
  {
    name: 'express 4, app.use(BASE, portal(…))',
    serve: (options) => {
      const app = express4();
      app.use(PORTAL_BASE, portal(options));
      return app;
    },
    rawPath: true,
  },
  { name: 'fetch (served by node:http)', serve: (options) => fetchListener(portalFetchHandler(options)), rawPath: false },
];

function keepingLogger(): { logger: Logger; lines: { message: string; fields: Record<string, unknown> }[] } {
  const lines: { message: string; fields: Record<string, unknown> }[] = [];
  const at = (fields: object | string, message?: string): void => void lines.push(typeof fields === 'string' ? { message: fields, fields: {} } : { message: message ?? '', fields: fields as Record<string, unknown> });
  const logger: Logger = { debug: at, info: at, warn: at, error: at, child: () => logger };
  return { logger, lines };
}

describe.each(ADAPTERS)('the portal, $name', (adapter) => {
  it('200 hostile link tokens, session and CSRF cookies, form tokens, origins and paths → never a 5xx, no session, nothing registered', async () => {
    const dispatcher = testDispatcher();
    const { logger, lines } = keepingLogger();
    await withServer(adapter.serve({ dispatcher, key: PORTAL_KEY, basePath: PORTAL_BASE, logger }), async (url) => {
      const link = new URL(createPortalLink({ key: PORTAL_KEY, business_id: 'biz_a', baseUrl: `${url}${PORTAL_BASE}` }));
      const real = link.searchParams.get('portal_token')!;
      const hostile = fc.record({
        method: fc.constantFrom('GET', 'POST', 'HEAD'),
        path: fc.oneof(fc.constant(`${PORTAL_BASE}/webhooks`), fc.constant(`${PORTAL_BASE}/open`), pathBelow(PORTAL_BASE)),
        token: fc.option(fc.oneof(queryValue, fc.nat({ max: real.length - 1 }).map((cut) => real.slice(0, cut)), fc.string({ maxLength: 3 }).map((tail) => `${real.slice(0, -3)}${tail}`))),
        session: fc.option(cookieHeader(PORTAL_SESSION_COOKIE)),
        csrf: fc.option(cookieHeader(CSRF_COOKIE)),
        formToken: cookieBytes,
        origin: fc.option(fc.constantFrom('null', 'http://evil.example', url, 'not a url')),
      });
      await fc.assert(
        fc.asyncProperty(hostile, async ({ method, path, token, session, csrf, formToken, origin }) => {
          const headers: [string, string | Buffer][] = [['accept', 'application/json'], ['content-type', 'application/x-www-form-urlencoded']];
          const cookies = [session, csrf].filter((value): value is Buffer => value !== null);
          if (cookies.length > 0) headers.push(['cookie', Buffer.concat(cookies.flatMap((value, index) => (index === 0 ? [value] : [Buffer.from('; '), value])))]);
          if (origin !== null) headers.push(['origin', origin]);
          const target = token === null ? path : `${path}?portal_token=${token}`;
          const body = method === 'POST' ? Buffer.concat([Buffer.from('url=http%3A%2F%2F127.0.0.1%3A9%2Fhooks&events=*&_csrf='), formToken]) : undefined;
          const answer = await rawRequest(url, { method, target, headers, ...(body === undefined ? {} : { body }) });
          expect(answer.status, target).toBeLessThan(500);
          expect([201, 303], target).not.toContain(answer.status);
          expect((answer.headers.get('set-cookie') ?? []).some((line) => line.startsWith(`${PORTAL_SESSION_COOKIE}=`)), target).toBe(false);
        }),
        { numRuns: 200 },
      );
      expect(await dispatcher.webhooks.list()).toEqual([]);
      const client = new Client(url);
      expect((await client.get(`${link.pathname}${link.search}`)).status).toBe(200);
    });
    expect(lines).toEqual([]);
  });

  it('an unexpected failure → 500, one log line with the path and not the query; the next request is served', async () => {
    const dispatcher = testDispatcher();
    const { logger, lines } = keepingLogger();
    await withServer(adapter.serve({ dispatcher, key: PORTAL_KEY, basePath: PORTAL_BASE, logger }), async (url) => {
      const client = new Client(url);
      const link = new URL(createPortalLink({ key: PORTAL_KEY, business_id: 'biz_a', baseUrl: `${url}${PORTAL_BASE}` }));
      expect((await client.get(`${link.pathname}${link.search}`)).status).toBe(200);
      const list = dispatcher.webhooks.list.bind(dispatcher.webhooks);
      Object.assign(dispatcher.webhooks, { list: () => Promise.reject(new Error('the store is down')) });
      const failed = await client.get(`${PORTAL_BASE}/webhooks?secret=not-for-the-log`);
      expect(failed.status).toBe(500);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ message: 'portal request failed', fields: { path: `${PORTAL_BASE}/webhooks` } });
      expect(JSON.stringify(lines[0]!.fields)).not.toContain('not-for-the-log');
      Object.assign(dispatcher.webhooks, { list });
      expect((await client.get(`${PORTAL_BASE}/webhooks`)).status).toBe(200);
    });
  });
});

describe.each(ADAPTERS.filter((adapter) => adapter.rawPath))('the portal, $name, which sees the path as sent', (adapter) => {
  it('a path with a dot segment → 400 INVALID_PATH, a link included', async () => {
    const dispatcher = testDispatcher();
    await withServer(adapter.serve({ dispatcher, key: PORTAL_KEY, basePath: PORTAL_BASE, logger: false }), async (url) => {
      const link = new URL(createPortalLink({ key: PORTAL_KEY, business_id: 'biz_a', baseUrl: `${url}${PORTAL_BASE}` }));
      for (const path of [`${PORTAL_BASE}/./webhooks`, `${PORTAL_BASE}/%2e%2E/open${link.search}`, `${PORTAL_BASE}/webhooks/%2e%2e`]) {
        const answer = await rawRequest(url, { target: path, headers: [['accept', 'application/json']] });
        expect(answer.status, path).toBe(400);
        expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'INVALID_PATH' } });
      }
      expect((await new Client(url).get(`${link.pathname}${link.search}`)).status).toBe(200);
    });
  });
});
