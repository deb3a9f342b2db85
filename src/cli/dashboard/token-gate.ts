import { randomBytes } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parseCookies } from '../../dashboard/csrf.js';
import { DashboardError, invalidPath } from '../../dashboard/errors.js';
import { cameOverHttps, withSecurityHeaders, type DashboardResponse } from '../../dashboard/http.js';
import { writeOrDrop } from '../../dashboard/node.js';
import { refusalResponse } from '../../dashboard/refusal.js';
import { hasDotSegment, requestTarget } from '../../dashboard/request-target.js';
import { secretsEqual } from '../../dashboard/secret-equal.js';

/** The session cookie the one-time token is exchanged for. */
export const SESSION_COOKIE = 'acct_dashboard_session';

const randomToken = (): string => randomBytes(32).toString('base64url');

/** Why a request was refused: `details.reason` of the 401, so that a script can tell. */
type RefusalReason = 'no_session' | 'invalid_token' | 'session_ended';

/** What the gate does with a request it could not answer (the answer is a 500 already). */
export type GateFailureHandler = (error: unknown, request: { method: string; url: string; headers: IncomingMessage['headers'] }) => DashboardResponse;

/**
 * Access for a dashboard served by the CLI: the printed URL carries a token that works once. The
 * first GET with it gets a session cookie (HttpOnly, SameSite=Strict, and Secure when the request
 * came over https) and is redirected to the same page without the token, so it leaves the address
 * bar and the history; every later request needs the cookie. A HEAD with the token (a link
 * preview, a checker) is told where it would go and gets no session, and the token stays unused.
 * Anything else is 401, and a path with a dot segment is 400 before any of that.
 *
 * Tokens and cookies are compared as bytes in constant time ({@link secretsEqual}): no value of
 * any length or encoding can throw, and anything that throws anyway is answered 500 by `failed`.
 */
export class TokenGate {
  /** For the printed URL. */
  readonly token = randomToken();
  private readonly session = randomToken();
  private used = false;

  constructor(
    private readonly inner: RequestListener,
    private readonly failed: GateFailureHandler,
  ) {}

  readonly listener: RequestListener = (req, res) => {
    try {
      this.route(req, res);
    } catch (error) {
      writeOrDrop(req, res, this.failed(error, { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers }));
    }
  };

  private route(req: IncomingMessage, res: ServerResponse): void {
    const target = requestTarget(req.url ?? '/');
    if (hasDotSegment(target.path)) {
      const nextStep = 'Open the dashboard by the URL that acct-webhook dashboard printed, or by its own links.';
      return send(req, res, refusalResponse(req.headers.accept, { error: invalidPath(), status: 400, title: 'Not a page of this dashboard', nextStep }));
    }
    const cookie = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
    if (secretsEqual(cookie, this.session)) return this.inner(req, res);
    const token = target.query.get('token') ?? undefined;
    const method = req.method ?? 'GET';
    if (token !== undefined && (method === 'GET' || method === 'HEAD')) {
      if (this.used || !secretsEqual(token, this.token)) return refuse(req, res, 'invalid_token');
      target.query.delete('token');
      const location = `${sameSiteLocation(target.path)}${target.query.size > 0 ? `?${target.query.toString()}` : ''}`;
      if (method === 'HEAD') return send(req, res, { status: 303, headers: { location }, body: '' });
      this.used = true;
      const secure = cameOverHttps(req.headers, (req.socket as { encrypted?: boolean } | null)?.encrypted === true);
      return send(req, res, {
        status: 303,
        headers: { location, 'set-cookie': `${SESSION_COOKIE}=${this.session}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`, 'referrer-policy': 'no-referrer' },
        body: '',
      });
    }
    refuse(req, res, cookie === undefined ? 'no_session' : 'session_ended');
  }
}

/**
 * The path as a redirect target that stays on this site: a path starting with `//` or `/\` is
 * another host to a browser, so leading slashes and backslashes become one `/`; characters that
 * cannot stand in a `Location` header are percent-encoded.
 */
function sameSiteLocation(path: string): string {
  const local = `/${path.replace(/^[/\\]+/, '')}`;
  return local.replace(/[^\x21-\x7e]|\\/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

const REFUSALS: Readonly<Record<RefusalReason, { message: string; title: string; nextStep: string }>> = {
  no_session: {
    title: 'Sign in with the printed URL',
    message: 'This browser has no session for this dashboard',
    nextStep: 'Open the URL that acct-webhook dashboard printed in its terminal. Its token works once: the browser that opens it gets a session.',
  },
  invalid_token: {
    title: 'This link does not work (any more)',
    message: 'The token in this link is not valid: it works once, and only while the acct-webhook dashboard that printed it runs',
    nextStep: 'To sign in again, stop acct-webhook dashboard (Ctrl-C), start it again and open the new URL it prints.',
  },
  session_ended: {
    title: 'Your session has ended',
    message: 'This browser\u2019s session belongs to an earlier run of acct-webhook dashboard',
    nextStep: 'Sign in again: open the URL that acct-webhook dashboard printed when it started; if that was opened already, restart it and open the new one.',
  },
};

function refuse(req: IncomingMessage, res: ServerResponse, reason: RefusalReason): void {
  const { message, title, nextStep } = REFUSALS[reason];
  send(req, res, refusalResponse(req.headers.accept, { error: new DashboardError('UNAUTHORIZED', message, { reason }), status: 401, title, nextStep }));
}

function send(req: IncomingMessage, res: ServerResponse, response: DashboardResponse): void {
  const { status, headers, body } = withSecurityHeaders(response);
  res.writeHead(status, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
}
