import Database from 'better-sqlite3';
import fc from 'fast-check';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostWarning, isLoopbackHost } from '../../src/cli/dashboard/host-warning.js';
import { SESSION_COOKIE } from '../../src/cli/dashboard/token-gate.js';
import { hasDotSegment } from '../../src/dashboard/request-target.js';
import { Dispatcher } from '../../src/dispatcher.js';
import { sqliteStore } from '../../src/index.js';
import { cookieHeader, ISSUE_TOKEN, pathBelow, queryValue } from '../dashboard/hostile-values.js';
import { tempDir } from '../dispatcher/fixtures.js';
import { rawRequest, type RawResponse } from '../helpers/raw-http.js';
import { CommandRun, expectOneLineError, runCommand } from './helpers.js';

const running: CommandRun[] = [];
afterEach(async () => {
  for (const run of running.splice(0)) await run.stop();
});

/** A dispatcher database with one registration, and a receiver event store, as files. */
async function databases(): Promise<{ db: string; eventsDb: string; webhookUrl: string }> {
  const dir = tempDir();
  const db = join(dir, 'dispatch.db');
  const dispatcher = new Dispatcher({ database: db, logger: false, allowInsecureUrls: true });
  const webhookUrl = 'http://127.0.0.1:9/hooks';
  await dispatcher.webhooks.create({ url: webhookUrl, events: ['invoice.*'] });
  await dispatcher.close();
  const eventsDb = join(dir, 'events.db');
  const store = sqliteStore(eventsDb);
  await store.claim('evt_cli_dashboard_1', { now: Date.now(), leaseMs: 1000, type: 'invoice.paid' });
  await store.close();
  return { db, eventsDb, webhookUrl };
}

async function start(args: readonly string[]): Promise<{ run: CommandRun; url: URL }> {
  const run = new CommandRun(['dashboard', '--port', '0', ...args]);
  running.push(run);
  const [printed] = await run.waitForOutput(/http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+/);
  return { run, url: new URL(printed) };
}

describe('acct-webhook dashboard', () => {
  it('prints a URL whose token works once and becomes a session cookie; everything else gets 401', async () => {
    const { db, eventsDb, webhookUrl } = await databases();
    const { url } = await start(['--db', db, '--events-db', eventsDb]);
    const origin = url.origin;
    for (const path of ['/', '/webhooks', '/?token=wrong', '/assets/dashboard.css']) {
      const refused = await fetch(`${origin}${path}`, { redirect: 'manual' });
      expect(refused.status, path).toBe(401);
      expect(await refused.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    }
    const admitted = await fetch(url, { redirect: 'manual' });
    expect(admitted.status).toBe(303);
    expect(admitted.headers.get('location')).toBe('/');
    const cookie = admitted.headers.get('set-cookie')!.split(';')[0]!;
    expect(admitted.headers.get('set-cookie')).toContain('HttpOnly');
    expect(admitted.headers.get('set-cookie')).not.toContain('Secure');
    const registrations = await fetch(`${origin}/webhooks`, { headers: { cookie } });
    expect(registrations.status).toBe(200);
    expect(await registrations.text()).toContain(webhookUrl);
    expect(await (await fetch(`${origin}/receiver/events`, { headers: { cookie } })).text()).toContain('evt_cli_dashboard_1');
    expect((await fetch(`${origin}/receiver/inbox`, { headers: { cookie } })).status).toBe(200);
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(401);
  });

  it('stops on Ctrl-C', async () => {
    const { db } = await databases();
    const { run } = await start(['--db', db]);
    expect(await run.stop('SIGINT')).toBe(0);
    running.length = 0;
    expect(run.stderr).toBe('Stopped.\n');
  });

  it.each([
    ['neither database', 'INVALID_OPTION', []],
    ['a --db that does not exist', 'UNREADABLE_FILE', ['--db', '/nonexistent/dispatch.db']],
    ['an --events-db that does not exist', 'UNREADABLE_FILE', ['--events-db', '/nonexistent/events.db']],
  ])('%s → one line, %s', async (_name, code, args) => {
    expectOneLineError(await runCommand(['dashboard', '--port', '0', ...args]), code, 2);
  });

  it('an --events-db that is not an event store → MALFORMED_INPUT, the file untouched', async () => {
    const file = join(tempDir(), 'notes.db');
    writeFileSync(file, 'just text');
    expectOneLineError(await runCommand(['dashboard', '--port', '0', '--events-db', file]), 'MALFORMED_INPUT', 2);
    expect(readFileSync(file, 'utf8')).toBe('just text');
  });
});

/** The session cookie (`name=value`) of a GET of the printed URL. */
async function signIn(url: URL, headers: Record<string, string> = {}): Promise<{ cookie: string; setCookie: string }> {
  const admitted = await fetch(url, { redirect: 'manual', headers });
  expect(admitted.status).toBe(303);
  const setCookie = admitted.headers.get('set-cookie')!;
  return { cookie: setCookie.split(';')[0]!, setCookie };
}

describe('acct-webhook dashboard: the one-time token and the session', () => {
  it('the issue\'s token (42 × A + %C3%A9: 43 characters, 44 bytes), and session cookies of 43 characters in more bytes → 401; the dashboard still answers', async () => {
    const { db } = await databases();
    const { run, url } = await start(['--db', db]);
    const answers = [
      await rawRequest(url.origin, { target: `/?token=${ISSUE_TOKEN}` }),
      // node reads header bytes as latin1: 41 × A and the two bytes of é are 43 characters, 45 bytes in UTF-8.
      await rawRequest(url.origin, { target: '/', headers: [['cookie', Buffer.concat([Buffer.from(`${SESSION_COOKIE}=${'A'.repeat(41)}`), Buffer.from('é', 'utf8')])]] }),
      await rawRequest(url.origin, { target: '/', headers: [['cookie', Buffer.concat([Buffer.from(`${SESSION_COOKIE}=${'A'.repeat(42)}`), Buffer.of(0xe9)])]] }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401]);
    const { cookie } = await signIn(url);
    expect((await fetch(`${url.origin}/webhooks`, { headers: { cookie } })).status).toBe(200);
    expect(run.stderr).toBe('');
  });

  it('a HEAD with the token is told where it leads, gets no session, and leaves the token for the browser', async () => {
    const { db } = await databases();
    const { url } = await start(['--db', db]);
    const preview = await fetch(url, { method: 'HEAD', redirect: 'manual' });
    expect(preview.status).toBe(303);
    expect(preview.headers.get('location')).toBe('/');
    expect(preview.headers.get('set-cookie')).toBeNull();
    const { cookie } = await signIn(url);
    expect((await fetch(`${url.origin}/`, { headers: { cookie } })).status).toBe(200);
    expect((await fetch(url, { method: 'HEAD', redirect: 'manual' })).status).toBe(401);
  });

  it('GET /.//evil.example/x with the token → 400 INVALID_PATH, no redirect, the token unused; //evil.example/x redirects on this site', async () => {
    const { db } = await databases();
    const { url } = await start(['--db', db]);
    const token = url.searchParams.get('token')!;
    const dotted = await rawRequest(url.origin, { target: `/.//evil.example/x?token=${token}`, headers: [['accept', 'application/json']] });
    expect(dotted.status).toBe(400);
    expect(dotted.headers.has('location')).toBe(false);
    expect(JSON.parse(dotted.body)).toMatchObject({ error: { code: 'INVALID_PATH' } });
    for (const path of ['//evil.example/x', '/\\evil.example/x', '/\\/evil.example/x']) {
      const { db: other } = await databases();
      const { url: fresh } = await start(['--db', other]);
      const admitted = await rawRequest(fresh.origin, { target: `${path}?token=${fresh.searchParams.get('token')}&page=2` });
      expect(admitted.status, path).toBe(303);
      const location = admitted.headers.get('location')![0]!;
      expect(location, path).toMatch(/^\/[^/\\]/);
      expect(new URL(location, fresh.origin).origin, path).toBe(fresh.origin);
      expect(location, path).toContain('page=2');
      expect(location, path).not.toContain('token');
    }
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(303);
  });

  it.each(['/..', '/./webhooks', '/webhooks/..', '/%2e%2E/webhooks', '/x/%2e/deliveries', '/assets/.%2e/webhooks', '/webhooks\\..\\deliveries'])(
    '%s → 400 INVALID_PATH, with or without a session',
    async (path) => {
      expect(hasDotSegment(path)).toBe(true);
      const { db } = await databases();
      const { url } = await start(['--db', db]);
      const { cookie } = await signIn(url);
      for (const headers of [[], [['cookie', cookie]]] as const) {
        const refused = await rawRequest(url.origin, { target: path, headers: [...headers, ['accept', 'application/json']] });
        expect(refused.status).toBe(400);
        expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'INVALID_PATH' } });
      }
    },
  );

  it('a browser is refused with an HTML page that says what to do next; an API client gets the envelope with details.reason', async () => {
    const { db } = await databases();
    const { url } = await start(['--db', db]);
    const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    const cases = [
      ['no session', `${url.origin}/webhooks`, {}, 'no_session', 'open the URL that acct-webhook dashboard printed'],
      ['a wrong token', `${url.origin}/?token=${'B'.repeat(43)}`, {}, 'invalid_token', 'start it again and open the new URL'],
      ['a session of an earlier run', `${url.origin}/`, { cookie: `${SESSION_COOKIE}=${'C'.repeat(43)}` }, 'session_ended', 'sign in again'],
    ] as const;
    for (const [name, target, headers, reason, nextStep] of cases) {
      const page = await fetch(target, { redirect: 'manual', headers: { ...browser, ...headers } });
      expect(page.status, name).toBe(401);
      expect(page.headers.get('content-type'), name).toContain('text/html');
      expect(page.headers.get('content-security-policy'), name).toContain("default-src 'none'");
      expect((await page.text()).toLowerCase(), name).toContain(nextStep.toLowerCase());
      const api = await fetch(target, { redirect: 'manual', headers });
      expect(api.headers.get('content-type'), name).toContain('application/json');
      expect(await api.json(), name).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String), details: { reason } } });
    }
  });

  it('the printed URL opened a second time (another browser, or the same one without its cookie) → an HTML page to restart; curl gets the envelope', async () => {
    const { db } = await databases();
    const { url } = await start(['--db', db]);
    await signIn(url);
    const browser = await fetch(url, { redirect: 'manual', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(browser.status).toBe(401);
    expect(browser.headers.get('content-type')).toContain('text/html');
    const text = await browser.text();
    expect(text).toContain('<h1>This link does not work (any more)</h1>');
    expect(text).toContain('start it again and open the new URL it prints');
    expect(text).not.toContain(url.searchParams.get('token'));
    const api = await fetch(url, { redirect: 'manual' });
    expect(await api.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String), details: { reason: 'invalid_token' } } });
  });

  it('the session cookie gets Secure when a TLS proxy says the request came over https (X-Forwarded-Proto), and not over plain http', async () => {
    const { db } = await databases();
    const { url } = await start(['--db', db]);
    const { setCookie } = await signIn(url, { 'x-forwarded-proto': 'https' });
    expect(setCookie.split('; ')).toEqual([expect.stringMatching(new RegExp(`^${SESSION_COOKIE}=`)), 'Path=/', 'HttpOnly', 'SameSite=Strict', 'Secure']);
    const { db: other } = await databases();
    const { url: plain } = await start(['--db', other]);
    expect((await signIn(plain, { 'x-forwarded-proto': 'http' })).setCookie.split('; ')).not.toContain('Secure');
  });

  it('an unexpected error in a request → a 500 page and one line on stderr (no token, no stack); the dashboard goes on', async () => {
    const { db, eventsDb } = await databases();
    const { run, url } = await start(['--db', db, '--events-db', eventsDb]);
    const { cookie } = await signIn(url);
    const other = new Database(eventsDb);
    other.exec('DROP TABLE acct_webhook_events');
    other.close();
    const page = await fetch(`${url.origin}/receiver/events?token=${url.searchParams.get('token')}`, { headers: { cookie, accept: 'text/html' } });
    expect(page.status).toBe(500);
    expect(await page.text()).toContain('Something went wrong');
    const api = await fetch(`${url.origin}/receiver/events`, { headers: { cookie } });
    expect(api.status).toBe(500);
    expect(await api.json()).toMatchObject({ error: { code: 'INTERNAL_ERROR' } });
    expect(run.stderr.split('\n').filter((line) => line !== '')).toEqual([
      'error: GET /receiver/events failed: SqliteError: no such table: acct_webhook_events',
      'error: GET /receiver/events failed: SqliteError: no such table: acct_webhook_events',
    ]);
    expect((await fetch(`${url.origin}/webhooks`, { headers: { cookie } })).status).toBe(200);
  });
});

/** Statuses a request without a session can get: node's parser refuses (400, 431), the dot-segment rule (400), the gate (401). */
const WITHOUT_SESSION = [400, 401, 431];

/** The dashboard's answer to anything a signed-in browser can ask: never a 5xx. */
function expectNotAFailure(answer: RawResponse, what: string): void {
  expect(answer.status, what).toBeLessThan(500);
}

describe('acct-webhook dashboard: hostile requests (fuzz)', () => {
  it('400 tokens, cookies and paths of every length in bytes and characters: each answered 400/401/431, no session given; then the token still works', async () => {
    const { db, eventsDb } = await databases();
    const { run, url } = await start(['--db', db, '--events-db', eventsDb]);
    const hostile = fc.record({
      method: fc.constantFrom('GET', 'HEAD', 'POST'),
      path: pathBelow(''),
      token: fc.option(queryValue, { freq: 4 }),
      cookie: fc.option(cookieHeader(SESSION_COOKIE)),
      accept: fc.constantFrom('text/html', 'application/json'),
    });
    await fc.assert(
      fc.asyncProperty(hostile, async ({ method, path, token, cookie, accept }) => {
        const target = token === null ? path : `${path}?token=${token}`;
        const answer = await rawRequest(url.origin, { method, target, headers: [['accept', accept], ...(cookie === null ? [] : ([['cookie', cookie]] as const))] });
        expect(WITHOUT_SESSION, target).toContain(answer.status);
        expect(answer.headers.has('set-cookie'), target).toBe(false);
        if (hasDotSegment(path) && answer.status !== 431) expect(answer.status, target).toBe(400);
        if (answer.status === 401 && method !== 'HEAD' && accept === 'application/json') expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
      }),
      { numRuns: 400 },
    );
    const { cookie } = await signIn(url);
    expect((await fetch(`${url.origin}/webhooks`, { headers: { cookie } })).status).toBe(200);
    expect(run.stderr).toBe('');
  });

  it('200 hostile paths and query values with a valid session: every answer below 500', async () => {
    const { db, eventsDb } = await databases();
    const { run, url } = await start(['--db', db, '--events-db', eventsDb]);
    const { cookie } = await signIn(url);
    const pages = ['/', '/webhooks', '/webhooks/new', '/deliveries', '/deliveries/retry', '/receiver/events', '/receiver/quarantine', '/receiver/inbox'];
    const names = ['page', 'status', 'event_type', 'webhook_id', 'from', 'to', 'http', 'q', 'notice', 'token'];
    const hostile = fc.record({
      path: fc.oneof(fc.constantFrom(...pages), pathBelow('')),
      query: fc.array(fc.tuple(fc.constantFrom(...names), queryValue), { maxLength: 4 }),
    });
    await fc.assert(
      fc.asyncProperty(hostile, async ({ path, query }) => {
        const target = query.length === 0 ? path : `${path}?${query.map(([name, value]) => `${name}=${value}`).join('&')}`;
        expectNotAFailure(await rawRequest(url.origin, { target, headers: [['cookie', cookie], ['accept', 'text/html']] }), target);
      }),
      { numRuns: 200 },
    );
    expect(run.stderr).toBe('');
  });
});

describe('acct-webhook dashboard --host', () => {
  it.each(['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])('%s is this machine only: no warning', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
    expect(hostWarning(host)).toBeUndefined();
  });

  it.each(['0.0.0.0', '::', '192.168.1.20', '10.0.0.5', 'dashboard.internal', '128.0.0.1'])('%s reaches other machines: a warning about clear text', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
    expect(hostWarning(host)).toBe(
      `warning: --host ${host} serves the dashboard to other machines over plain http: the one-time token, the session cookie and the signing secrets it shows cross the network in clear text unless a TLS proxy (https) fronts it`,
    );
  });

  it('the command prints the warning first, before it opens a database or listens', async () => {
    // A database that does not exist: the command stops before it would listen on 0.0.0.0.
    const result = await runCommand(['dashboard', '--port', '0', '--host', '0.0.0.0', '--db', '/nonexistent/dispatch.db']);
    const [warning, error, ...rest] = result.stderr.split('\n');
    expect(warning).toBe(hostWarning('0.0.0.0'));
    expect(error).toMatch(/\[UNREADABLE_FILE\]$/);
    expect(rest).toEqual(['']);
    expect(result.exitCode).toBe(2);
  });

  it('no warning on the default address', async () => {
    const { db } = await databases();
    const { run } = await start(['--db', db]);
    expect(run.stderr).toBe('');
  });
});
