import { buildDashboard, internalErrorResponse } from './dashboard.js';
import { formTooLarge } from './errors.js';
import { MAX_FORM_BYTES } from './http.js';
import { resolveDashboardOptions, type DashboardOptions } from './options.js';

/** A web-standard handler: `(Request) => Promise<Response>`. */
export type DashboardFetchHandler = (request: Request) => Promise<Response>;

/**
 * The dashboard for Fetch-API frameworks (Next.js route handlers, Hono, Bun, Deno). Requests
 * outside `basePath` get 404; an unexpected error answers 500 and is rethrown nowhere, so pass a
 * framework error hook if you need it logged.
 *
 * @example
 * // app/admin/webhooks/[[...path]]/route.ts (Next.js)
 * const board = dashboardFetchHandler({ dispatcher, basePath: '/admin/webhooks', authorize: (request) => isAdmin(request) });
 * export { board as GET, board as POST };
 */
export function dashboardFetchHandler(options: DashboardOptions<Request>): DashboardFetchHandler {
  const core = buildDashboard(resolveDashboardOptions(options, 'dashboardFetchHandler'));
  return async (request) => {
    const url = new URL(request.url);
    const headers = Object.fromEntries(request.headers);
    try {
      const response = await core.handle({ method: request.method, url: url.pathname + url.search, headers, body: () => readForm(request), original: request });
      if (!response) return new Response('Not found', { status: 404 });
      return new Response(request.method === 'HEAD' ? null : response.body, { status: response.status, headers: toHeaders(response.headers) });
    } catch {
      const failed = internalErrorResponse();
      return new Response(failed.body, { status: failed.status, headers: toHeaders(failed.headers) });
    }
  };
}

function toHeaders(headers: Record<string, string | string[]>): Headers {
  const result = new Headers();
  for (const [name, value] of Object.entries(headers)) for (const item of Array.isArray(value) ? value : [value]) result.append(name, item);
  return result;
}

async function readForm(request: Request): Promise<string> {
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_FORM_BYTES) throw formTooLarge(MAX_FORM_BYTES);
  return text;
}
