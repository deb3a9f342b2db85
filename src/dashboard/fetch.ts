import { buildDashboard, type DashboardCore } from './dashboard.js';
import { fetchAnswer } from '../http/answer.js';
import { readWebBody } from '../http/body.js';
import { FORM_LIMITS, type DashboardRequest } from './http.js';
import { resolveDashboardOptions, type DashboardOptions } from './options.js';

/** A web-standard handler: `(Request) => Promise<Response>`. */
export type DashboardFetchHandler = (request: Request) => Promise<Response>;

/**
 * The dashboard for Fetch-API frameworks (Hono, tested; anything that hands a `Request` and
 * takes a `Response`). Requests outside `basePath` get 404. An unexpected error is logged
 * through `logger` and answered 500; the returned promise never rejects.
 *
 * @example
 * const board = dashboardFetchHandler({ dispatcher, basePath: '/admin/webhooks', authorize: (request) => isAdmin(request) });
 * app.all('/admin/webhooks/*', (c) => board(c.req.raw));   // Hono
 */
export function dashboardFetchHandler(options: DashboardOptions<Request>): DashboardFetchHandler {
  return fetchHandlerOf(buildDashboard(resolveDashboardOptions(options, 'dashboardFetchHandler')));
}

/** A Fetch-API handler over a built dashboard (or portal). */
export function fetchHandlerOf(core: DashboardCore): DashboardFetchHandler {
  return async (request) => {
    const headers = Object.fromEntries(request.headers);
    let dashboardRequest: Pick<DashboardRequest, 'method' | 'url' | 'headers'> = { method: request.method, url: '/', headers };
    try {
      const url = new URL(request.url);
      dashboardRequest = { method: request.method, url: url.pathname + url.search, headers };
      const response = await core.handle({ ...dashboardRequest, tls: url.protocol === 'https:', body: () => readForm(request), original: request });
      if (!response) return new Response('Not found', { status: 404 });
      return fetchAnswer(response, request.method);
    } catch (error) {
      return fetchAnswer(core.failed(error, dashboardRequest), request.method);
    }
  };
}

/** The form as text, read by the HTTP edge under the form's limits. @throws HttpBodyError */
async function readForm(request: Request): Promise<string> {
  return new TextDecoder().decode(await readWebBody(request, FORM_LIMITS));
}
