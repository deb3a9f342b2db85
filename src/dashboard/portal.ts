import { shareStoreAccess } from '../dispatcher/reads.js';
import { matchRoute } from '../http/router.js';
import { checkedForm, errorResponse, invalidPathResponse, pathBelow, ASSETS, type DashboardCore } from './dashboard.js';
import { csrfCookie, csrfTokenOf, newCsrfToken, parseCookies } from './csrf.js';
import { DashboardError, internalError } from './errors.js';
import { cameOverHttps, headerOf, redirect, type DashboardRequest, type DashboardResponse } from './http.js';
import type { PageContext } from './layout.js';
import { PORTAL_OPEN_PATH, PORTAL_TOKEN_PARAM, verifyPortalToken } from './portal-link.js';
import type { ResolvedPortal } from './portal-options.js';
import { BusinessRetryLimits, scopedDispatcher } from './portal-scope.js';
import { PORTAL_SESSION_COOKIE, sessionCookie, sessionOf, sessionTokenFor, UsedLinks } from './portal-session.js';
import { refusalResponse } from './refusal.js';
import { hasDotSegment, requestTarget } from './request-target.js';
import type { Route, RouteContext } from './routes.js';
import { DELIVERY_ROUTES } from './views/deliveries.js';
import { EVENT_TYPE_ROUTES } from './views/event-types.js';
import { DELETE_ROUTE, WEBHOOK_ROUTES } from './views/webhooks.js';

/** The portal's pages: the dashboard's registration and delivery pages, deleting, the event catalog. */
const ROUTES: readonly Route[] = [
  { method: 'GET', path: '/', handler: (context) => Promise.resolve(redirect(`${context.page.base}/webhooks`)) },
  ...WEBHOOK_ROUTES,
  DELETE_ROUTE,
  ...DELIVERY_ROUTES,
  ...EVENT_TYPE_ROUTES,
];

/** GET pages that exist only to take an action (a form page, a confirmation): refused with `read` access. */
const ACTION_PAGES: ReadonlySet<string> = new Set(['/webhooks/new', '/deliveries/retry']);

/** Builds the portal from checked options; the adapters are the dashboard's. */
export function buildPortal(options: ResolvedPortal): DashboardCore {
  const cookiePath = options.basePath === '' ? '/' : options.basePath;
  const used = new UsedLinks();
  const limits = new BusinessRetryLimits(options.clock);
  const theme = themeStylesheet(options.colors);
  const csp = contentSecurityPolicy(options);

  function secure(response: DashboardResponse): DashboardResponse {
    const headers: Record<string, string | string[]> = {
      'content-security-policy': csp,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
      'cache-control': 'no-store',
      ...(options.frameAncestors.length === 0 ? { 'x-frame-options': 'DENY' } : {}),
      ...response.headers,
    };
    return { ...response, headers };
  }

  async function handle(request: DashboardRequest): Promise<DashboardResponse | undefined> {
    const target = requestTarget(request.url);
    if (hasDotSegment(target.path)) return secure(invalidPathResponse(request, options.basePath));
    const path = pathBelow(target.path, options.basePath);
    if (path === undefined) return undefined;
    const method = request.method.toUpperCase();
    if (method === 'GET' || method === 'HEAD') {
      if (path === '/assets/portal-theme.css') return secure({ status: 200, headers: { 'content-type': 'text/css; charset=utf-8' }, body: theme });
      const asset = path === '/assets/favicon.svg' ? undefined : ASSETS[path];
      if (asset) return secure({ status: 200, headers: { 'content-type': asset.type }, body: asset.body });
    }
    const https = cameOverHttps(request.headers, request.tls);
    const cookies = parseCookies(headerOf(request, 'cookie'));
    if (path === PORTAL_OPEN_PATH && (method === 'GET' || method === 'HEAD')) return secure(open(request, target.query, https));
    const session = sessionOf(options.key, cookies.get(PORTAL_SESSION_COOKIE), options.basePath, options.clock());
    if (session === undefined) return secure(noSession(request));
    const existing = csrfTokenOf(cookies);
    const csrfToken = existing ?? newCsrfToken();
    const readOnly = session.access === 'read';
    const context: PageContext = { base: options.basePath, csrfToken, hasDispatcher: true, hasReceiver: false, portal: { title: options.title, logoUrl: options.logoUrl, readOnly } };
    let response: DashboardResponse;
    try {
      if (readOnly && (method === 'POST' || ACTION_PAGES.has(path))) {
        throw new DashboardError('FORBIDDEN', 'This portal was opened with read access: it shows, and changes nothing', { access: 'read' });
      }
      const match = matchRoute(ROUTES, method, path);
      if (match === undefined) throw new DashboardError('NOT_FOUND', 'No such page', { path });
      if (match === 'method') throw new DashboardError('METHOD_NOT_ALLOWED', `${method} is not allowed here`, { method });
      const form = match.route.method === 'POST' ? await checkedForm(request, csrfToken) : new URLSearchParams();
      const dispatcher = scopedDispatcher(options.dispatcher, session.business_id, limits);
      shareStoreAccess(options.dispatcher, dispatcher);
      const routeContext: RouteContext = { params: match.params, query: target.query, form, page: context, dispatcher, receiver: undefined, now: options.clock() };
      response = await match.route.handler(routeContext);
    } catch (error) {
      // The dashboard's refusal page in the portal's layout: another business's id is the same 404 as none.
      response = errorResponse(request, error, context);
    }
    if (existing === undefined) response.headers['set-cookie'] = csrfCookie(csrfToken, cookiePath, https);
    return secure(response);
  }

  /** A link: checked, used up, turned into a session cookie; the browser goes on without the token in its URL. */
  function open(request: DashboardRequest, query: URLSearchParams, https: boolean): DashboardResponse {
    const now = options.clock();
    const claims = verifyPortalToken(options.key, query.get(PORTAL_TOKEN_PARAM) ?? undefined, 'link', now);
    const accept = headerOf(request, 'accept');
    const again = 'Open the webhook settings again from your account in the app; it makes a fresh link.';
    const refused = (code: 'PORTAL_LINK_INVALID' | 'PORTAL_LINK_EXPIRED' | 'PORTAL_LINK_USED', message: string, title: string): DashboardResponse => {
      const answer = refusalResponse(accept, { error: new DashboardError(code, message), status: code === 'PORTAL_LINK_INVALID' ? 403 : 410, title, nextStep: again });
      answer.headers['referrer-policy'] = 'no-referrer';
      return answer;
    };
    if (claims === 'expired') return refused('PORTAL_LINK_EXPIRED', 'This link has expired: links open the portal for a short time only', 'The link has expired');
    if (claims === 'invalid') return refused('PORTAL_LINK_INVALID', 'This link is not valid: it was changed, cut short, or made with another key', 'The link is not valid');
    if (claims.path !== options.basePath) return refused('PORTAL_LINK_INVALID', 'This link was made for another portal', 'The link is not valid here');
    if (!used.take(claims.nonce, claims.expiresAt, now)) return refused('PORTAL_LINK_USED', 'This link was used already: each link opens the portal once', 'The link was used already');
    // One cookie per answer (some hosts keep only one Set-Cookie); the page it leads to sets the CSRF cookie.
    const answer = redirect(`${options.basePath}/webhooks`);
    return { ...answer, headers: { ...answer.headers, 'set-cookie': sessionCookie(sessionTokenFor(options.key, claims, now), cookiePath, https), 'referrer-policy': 'no-referrer' } };
  }

  function noSession(request: DashboardRequest): DashboardResponse {
    return refusalResponse(headerOf(request, 'accept'), {
      error: new DashboardError('UNAUTHORIZED', 'No portal session: it ended, or was never opened'),
      status: 401,
      title: 'Open the portal from your account',
      nextStep: 'Open the webhook settings again from your account in the app; it makes a fresh link for you.',
    });
  }

  function failed(error: unknown, request: Pick<DashboardRequest, 'method' | 'url' | 'headers'>): DashboardResponse {
    try {
      // The path only: the query may carry a link's token.
      options.logger.error({ err: error, method: request.method, path: requestTarget(request.url).path }, 'portal request failed');
    } catch {
      // A logger that throws must not leave the request unanswered.
    }
    return secure(refusalResponse(headerOf(request, 'accept'), { error: internalError(), status: 500, title: 'Something went wrong', nextStep: 'Try again. If it keeps failing, tell the platform.' }));
  }

  return { handle, failed };
}

/** The theme's custom properties as a stylesheet (served from the portal itself: the CSP allows no inline style). */
export function themeStylesheet(colors: Partial<Record<string, string>>): string {
  const properties = Object.entries(colors).map(([name, value]) => `--${name}: ${value};`);
  return `.portal header img.logo { vertical-align: middle; margin-right: 8px; }\n${properties.length === 0 ? '' : `:root { ${properties.join(' ')} }\n`}`;
}

/** The dashboard's strict policy, with the platform's origins as `frame-ancestors` and the logo's origin as an image source. */
export function contentSecurityPolicy(options: Pick<ResolvedPortal, 'frameAncestors' | 'logoUrl'>): string {
  const logoOrigin = options.logoUrl?.startsWith('https://') ? new URL(options.logoUrl).origin : undefined;
  const ancestors = options.frameAncestors.length === 0 ? "'none'" : options.frameAncestors.join(' ');
  return `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'${logoOrigin ? ` ${logoOrigin}` : ''}; connect-src 'self'; form-action 'self'; frame-ancestors ${ancestors}; base-uri 'none'`;
}
