import { isAcctWebhookError, type AcctWebhookError } from '../kernel/errors.js';
import { ICON, SCRIPT, STYLESHEET } from './assets.js';
import { csrfCookie, CSRF_FIELD, csrfTokenOf, csrfTokensMatch, newCsrfToken, parseCookies, sameOrigin } from './csrf.js';
import { HttpBodyError } from '../http/errors.js';
import { matchRoute } from '../http/router.js';
import { DashboardError, internalError, invalidPath } from './errors.js';
import { html } from './html.js';
import { cameOverHttps, headerOf, htmlResponse, jsonResponse, wantsHtml, withSecurityHeaders, type DashboardRequest, type DashboardResponse } from './http.js';
import { page, type PageContext } from './layout.js';
import { nextStepFor } from './next-step.js';
import type { ResolvedDashboard } from './options.js';
import { refusalResponse } from './refusal.js';
import { hasDotSegment, requestTarget } from './request-target.js';
import type { Route, RouteContext } from './routes.js';
import { DELIVERY_ROUTES } from './views/deliveries.js';
import { INBOX_ROUTES } from './views/inbox.js';
import { OVERVIEW_ROUTES } from './views/overview.js';
import { RECEIVER_ROUTES } from './views/receiver.js';
import { WEBHOOK_ROUTES } from './views/webhooks.js';

/** The framework-free dashboard: one request in, one answer out (`undefined`: not below the base path). */
export interface DashboardCore {
  /** @throws whatever failed unexpectedly (a refusal is an answer): the adapter hands it to {@link failed}. */
  handle(request: DashboardRequest): Promise<DashboardResponse | undefined>;
  /**
   * Logs an unexpected failure of `request` (one line: method, path without the query, the error)
   * and returns the 500 answer for it.
   */
  failed(error: unknown, request: Pick<DashboardRequest, 'method' | 'url' | 'headers'>): DashboardResponse;
}

export const ASSETS: Readonly<Record<string, { type: string; body: string }>> = {
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
    const target = requestTarget(request.url);
    // Before the base path is matched: what a dot segment resolves to is for the host app's router to say.
    if (hasDotSegment(target.path)) return withSecurityHeaders(invalidPathResponse(request, options.basePath));
    const path = pathBelow(target.path, options.basePath);
    if (path === undefined) return undefined;
    const cookies = parseCookies(headerOf(request, 'cookie'));
    const existing = csrfTokenOf(cookies);
    const csrfToken = existing ?? newCsrfToken();
    const context: PageContext = { base: options.basePath, csrfToken, hasDispatcher: options.dispatcher !== undefined, hasReceiver: options.receiver !== undefined, registrationName: options.registrationName };
    let response: DashboardResponse;
    try {
      response = await answer(request, path, target.query, context);
    } catch (error) {
      response = errorResponse(request, error, context);
    }
    if (existing === undefined) response.headers['set-cookie'] = csrfCookie(csrfToken, cookiePath, cameOverHttps(request.headers, request.tls));
    return withSecurityHeaders(response);
  }

  function failed(error: unknown, request: Pick<DashboardRequest, 'method' | 'url' | 'headers'>): DashboardResponse {
    try {
      // The path only: the query may carry a token.
      options.logger.error({ err: error, method: request.method, path: requestTarget(request.url).path }, 'dashboard request failed');
    } catch {
      // A logger that throws must not turn one failed request into an unanswered one (or a crash).
    }
    const refusal = refusalResponse(headerOf(request, 'accept'), {
      error: internalError(),
      status: 500,
      title: 'Something went wrong',
      nextStep: 'Try again. If it keeps failing, the server log has the error.',
    });
    return withSecurityHeaders(refusal);
  }

  async function answer(request: DashboardRequest, path: string, query: URLSearchParams, context: PageContext): Promise<DashboardResponse> {
    if (!(await allowed(request))) throw new DashboardError('FORBIDDEN', 'The host application did not authorize this request');
    const method = request.method.toUpperCase();
    const asset = ASSETS[path];
    if (asset && (method === 'GET' || method === 'HEAD')) return { status: 200, headers: { 'content-type': asset.type }, body: asset.body };
    const match = matchRoute(routes, method, path);
    if (match === undefined) throw new DashboardError('NOT_FOUND', 'No such page', { path });
    if (match === 'method') throw new DashboardError('METHOD_NOT_ALLOWED', `${method} is not allowed here`, { method });
    const form = match.route.method === 'POST' ? await checkedForm(request, context.csrfToken) : new URLSearchParams();
    const routeContext: RouteContext = { params: match.params, query, form, page: context, dispatcher: options.dispatcher, receiver: options.receiver, now: options.clock() };
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

  return { handle, failed };
}

/** The path below the base path ('/' for the base itself), or undefined for a path outside it. */
export function pathBelow(pathname: string, base: string): string | undefined {
  if (base === '') return pathname;
  if (pathname === base) return '/';
  return pathname.startsWith(`${base}/`) ? pathname.slice(base.length) : undefined;
}

/**
 * The posted form, once its CSRF token matches the cookie's and its origin (when the browser
 * names one) is this host. @throws DashboardError CSRF_TOKEN_INVALID; HttpBodyError PAYLOAD_TOO_LARGE (read by the
 * HTTP edge: refused from its `content-length` before a byte is read)
 */
export async function checkedForm(request: DashboardRequest, cookieToken: string): Promise<URLSearchParams> {
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
  if (error instanceof DashboardError || error instanceof HttpBodyError) return error.status;
  if (error.code === 'NOT_FOUND') return 404;
  if (error.code === 'RATE_LIMIT_EXCEEDED') return 429;
  if (error.code === 'DISPATCHER_CLOSED') return 503;
  return 422;
}

/** A refusal as a page (or the platform's envelope for a client that wants JSON); anything unexpected is thrown on to the adapter. */
export function errorResponse(request: DashboardRequest, error: unknown, context: PageContext): DashboardResponse {
  if (!isAcctWebhookError(error)) throw error;
  const status = statusOf(error);
  const accept = headerOf(request, 'accept');
  if (error instanceof DashboardError && error.code === 'FORBIDDEN') {
    // Not the dashboard's layout: its stylesheet and links are refused as well.
    return refusalResponse(accept, { error, status, title: 'Not allowed', nextStep: 'Sign in to the application again with an account that may use the webhook dashboard, or ask its administrator for access.' });
  }
  if (!wantsHtml(accept)) return jsonResponse(error.toBody(), status);
  const body = html`<p class="problem" role="alert"><strong>${error.code}</strong>: ${error.message}</p><p class="next-step">${nextStepFor(error)}</p><p><a href="${context.base}/">Back to the overview</a></p>`;
  return htmlResponse(page(context, 'overview', status === 404 ? 'Not found' : 'Refused', body), status);
}

/** 400 `INVALID_PATH` for a path with a dot segment, with a link to the overview. */
export function invalidPathResponse(request: DashboardRequest, base: string): DashboardResponse {
  return refusalResponse(headerOf(request, 'accept'), {
    error: invalidPath(),
    status: 400,
    title: 'Not a page of this dashboard',
    nextStep: html`Use the dashboard's own links, starting from <a href="${base}/">the overview</a>.`,
  });
}
