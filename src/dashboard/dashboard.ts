import { isAcctWebhookError, type AcctWebhookError } from '../errors.js';
import { ICON, SCRIPT, STYLESHEET } from './assets.js';
import { csrfCookie, CSRF_FIELD, csrfTokenOf, csrfTokensMatch, newCsrfToken, parseCookies, sameOrigin } from './csrf.js';
import { DashboardError, formTooLarge } from './errors.js';
import { html } from './html.js';
import { headerOf, htmlResponse, jsonResponse, MAX_FORM_BYTES, wantsHtml, withSecurityHeaders, type DashboardRequest, type DashboardResponse } from './http.js';
import { page, type PageContext } from './layout.js';
import type { ResolvedDashboard } from './options.js';
import { matchRoute, type Route, type RouteContext } from './routes.js';
import { DELIVERY_ROUTES } from './views/deliveries.js';
import { INBOX_ROUTES } from './views/inbox.js';
import { OVERVIEW_ROUTES } from './views/overview.js';
import { RECEIVER_ROUTES } from './views/receiver.js';
import { WEBHOOK_ROUTES } from './views/webhooks.js';

/** The framework-free dashboard: one request in, one answer out (`undefined`: not below the base path). */
export interface DashboardCore {
  handle(request: DashboardRequest): Promise<DashboardResponse | undefined>;
}

const ASSETS: Readonly<Record<string, { type: string; body: string }>> = {
  '/assets/dashboard.css': { type: 'text/css; charset=utf-8', body: STYLESHEET },
  '/assets/dashboard.js': { type: 'text/javascript; charset=utf-8', body: SCRIPT },
  '/assets/favicon.svg': { type: 'image/svg+xml', body: ICON },
};

/** Builds the dashboard from checked options (the adapters check their own, then call this). */
export function buildDashboard(options: ResolvedDashboard): DashboardCore {
  const routes: Route[] = [
    ...OVERVIEW_ROUTES,
    ...(options.dispatcher ? [...WEBHOOK_ROUTES, ...DELIVERY_ROUTES] : []),
    ...(options.receiver ? [...RECEIVER_ROUTES, ...INBOX_ROUTES] : []),
  ];
  const cookiePath = options.basePath === '' ? '/' : options.basePath;

  async function handle(request: DashboardRequest): Promise<DashboardResponse | undefined> {
    const url = new URL(request.url, 'http://dashboard.invalid');
    const path = pathBelow(url.pathname, options.basePath);
    if (path === undefined) return undefined;
    const cookies = parseCookies(headerOf(request, 'cookie'));
    const existing = csrfTokenOf(cookies);
    const csrfToken = existing ?? newCsrfToken();
    const context: PageContext = { base: options.basePath, csrfToken, hasDispatcher: options.dispatcher !== undefined, hasReceiver: options.receiver !== undefined };
    let response: DashboardResponse;
    try {
      response = await answer(request, path, url, context);
    } catch (error) {
      response = errorResponse(request, error, context);
    }
    if (existing === undefined) response.headers['set-cookie'] = csrfCookie(csrfToken, cookiePath);
    return withSecurityHeaders(response);
  }

  async function answer(request: DashboardRequest, path: string, url: URL, context: PageContext): Promise<DashboardResponse> {
    if (!(await allowed(request))) throw new DashboardError('FORBIDDEN', 'The host application did not authorize this request');
    const method = request.method.toUpperCase();
    const asset = ASSETS[path];
    if (asset && (method === 'GET' || method === 'HEAD')) return { status: 200, headers: { 'content-type': asset.type }, body: asset.body };
    const match = matchRoute(routes, method, path);
    if (match === undefined) throw new DashboardError('NOT_FOUND', 'No such page', { path });
    if (match === 'method') throw new DashboardError('METHOD_NOT_ALLOWED', `${method} is not allowed here`, { method });
    const form = match.route.method === 'POST' ? await checkedForm(request, context.csrfToken) : new URLSearchParams();
    const routeContext: RouteContext = { params: match.params, query: url.searchParams, form, page: context, dispatcher: options.dispatcher, receiver: options.receiver };
    return match.route.handler(routeContext);
  }

  /** `authorize` decides; an answer that is not `true`, or a throw, keeps the request out. */
  async function allowed(request: DashboardRequest): Promise<boolean> {
    try {
      return (await options.authorize(request.original)) === true;
    } catch {
      return false;
    }
  }

  return { handle };
}

/** The path below the base path ('/' for the base itself), or undefined for a path outside it. */
function pathBelow(pathname: string, base: string): string | undefined {
  if (base === '') return pathname;
  if (pathname === base) return '/';
  return pathname.startsWith(`${base}/`) ? pathname.slice(base.length) : undefined;
}

/**
 * The posted form, once its CSRF token matches the cookie's and its origin (when the browser
 * names one) is this host. @throws DashboardError CSRF_TOKEN_INVALID, PAYLOAD_TOO_LARGE
 */
async function checkedForm(request: DashboardRequest, cookieToken: string): Promise<URLSearchParams> {
  if (Number(headerOf(request, 'content-length') ?? 0) > MAX_FORM_BYTES) throw formTooLarge(MAX_FORM_BYTES);
  if (!sameOrigin(headerOf(request, 'origin'), headerOf(request, 'host'))) throw new DashboardError('CSRF_TOKEN_INVALID', 'The form came from another site');
  const form = new URLSearchParams(await request.body());
  // A cookie made for this very answer proves nothing: the form must carry the one the browser had.
  const hadCookie = csrfTokenOf(parseCookies(headerOf(request, 'cookie'))) === cookieToken;
  if (!hadCookie || !csrfTokensMatch(cookieToken, form.get(CSRF_FIELD) ?? undefined)) {
    throw new DashboardError('CSRF_TOKEN_INVALID', 'The form has no valid CSRF token; reload the page and try again');
  }
  return form;
}

/** The status of a refusal: the dashboard's own from its code, the dispatcher's by what it means. */
function statusOf(error: AcctWebhookError): number {
  if (error instanceof DashboardError) return error.status;
  if (error.code === 'NOT_FOUND') return 404;
  if (error.code === 'RATE_LIMIT_EXCEEDED') return 429;
  if (error.code === 'DISPATCHER_CLOSED') return 503;
  return 422;
}

/** A refusal as a page (or the platform's envelope for a client that wants JSON); anything unexpected is thrown on to the adapter. */
function errorResponse(request: DashboardRequest, error: unknown, context: PageContext): DashboardResponse {
  if (!isAcctWebhookError(error)) throw error;
  const status = statusOf(error);
  if (!wantsHtml(request)) return jsonResponse(error.toBody(), status);
  const body = html`<p class="problem" role="alert"><strong>${error.code}</strong>: ${error.message}</p><p><a href="${context.base}/">Back to the overview</a></p>`;
  return htmlResponse(page(context, 'overview', status === 404 ? 'Not found' : 'Refused', body), status);
}

/** What an adapter answers when the dashboard failed unexpectedly (the error goes to the host app). */
export function internalErrorResponse(): DashboardResponse {
  return withSecurityHeaders({ status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'The dashboard failed to answer.' });
}
