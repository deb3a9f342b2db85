import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parseCookies } from '../../dashboard/csrf.js';

/** The session cookie the one-time token is exchanged for. */
export const SESSION_COOKIE = 'acct_dashboard_session';

const randomToken = (): string => randomBytes(32).toString('base64url');

function same(given: string | undefined, expected: string): boolean {
  return given !== undefined && given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

/**
 * Access for a dashboard served by the CLI: the printed URL carries a token that works once. The
 * first request with it gets a session cookie (HttpOnly, SameSite=Strict) and is redirected to
 * the same page without the token, so it leaves the address bar and the history; every later
 * request needs the cookie. Anything else is 401.
 */
export class TokenGate {
  /** For the printed URL. */
  readonly token = randomToken();
  private readonly session = randomToken();
  private used = false;

  constructor(private readonly inner: RequestListener) {}

  readonly listener: RequestListener = (req, res) => {
    if (same(parseCookies(req.headers.cookie).get(SESSION_COOKIE), this.session)) return void this.inner(req, res);
    const url = new URL(req.url ?? '/', 'http://dashboard.invalid');
    if (!this.used && same(url.searchParams.get('token') ?? undefined, this.token)) return this.admit(url, res);
    refuse(req, res);
  };

  private admit(url: URL, res: ServerResponse): void {
    this.used = true;
    url.searchParams.delete('token');
    res.writeHead(303, {
      location: `${url.pathname}${url.search}`,
      'set-cookie': `${SESSION_COOKIE}=${this.session}; Path=/; HttpOnly; SameSite=Strict`,
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
    });
    res.end();
  }
}

function refuse(req: IncomingMessage, res: ServerResponse): void {
  const body = { error: { code: 'UNAUTHORIZED', message: 'Open the URL that acct-webhook dashboard printed; its token works once, then this browser has a session', details: {} } };
  res.writeHead(401, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : JSON.stringify(body));
}
