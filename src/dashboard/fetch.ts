import { buildDashboard } from './dashboard.js';
import { formTooLarge } from './errors.js';
import { MAX_FORM_BYTES, type DashboardRequest, type DashboardResponse } from './http.js';
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
  const core = buildDashboard(resolveDashboardOptions(options, 'dashboardFetchHandler'));
  return async (request) => {
    const headers = Object.fromEntries(request.headers);
    let dashboardRequest: Pick<DashboardRequest, 'method' | 'url' | 'headers'> = { method: request.method, url: '/', headers };
    try {
      const url = new URL(request.url);
      dashboardRequest = { method: request.method, url: url.pathname + url.search, headers };
      const response = await core.handle({ ...dashboardRequest, tls: url.protocol === 'https:', body: () => readForm(request), original: request });
      if (!response) return new Response('Not found', { status: 404 });
      return toResponse(response, request.method === 'HEAD');
    } catch (error) {
      return toResponse(core.failed(error, dashboardRequest), request.method === 'HEAD');
    }
  };
}

function toResponse(response: DashboardResponse, headOnly: boolean): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  return new Response(headOnly ? null : response.body, { status: response.status, headers });
}

/**
 * The form as text, bounded before it is read: a `Content-Length` over the limit is refused
 * without reading, and the stream is read chunk by chunk and cancelled as soon as it passes the
 * limit (a body without a length, or one longer than it said).
 * @throws DashboardError PAYLOAD_TOO_LARGE
 */
async function readForm(request: Request): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > MAX_FORM_BYTES) throw formTooLarge(MAX_FORM_BYTES);
  if (request.body === null) return '';
  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_FORM_BYTES) {
      reader.cancel().catch(() => undefined); // the refusal is the answer; a failed cancel changes nothing
      throw formTooLarge(MAX_FORM_BYTES);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
