import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildDashboard, type DashboardCore } from './dashboard.js';
import { writeNodeAnswer } from '../http/answer.js';
import { readNodeBody } from '../http/body.js';
import { FORM_LIMITS, type DashboardRequest, type DashboardResponse } from './http.js';
import { resolveDashboardOptions, type DashboardOptions } from './options.js';

/** A Connect-style listener: `next` when given takes what is not below the base path. */
export type DashboardNodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

/**
 * The dashboard as a node:http request listener. Requests outside `basePath` go to `next` when
 * given, or get 404. A request that fails unexpectedly is logged (`logger`) and goes to `next`
 * when given, or gets a 500 page; no request ends the process.
 *
 * @example
 * const board = dashboardNodeHandler({ dispatcher, authorize: (req) => isAdmin(req), basePath: '/admin/webhooks' });
 * http.createServer(board).listen(3000, '127.0.0.1');
 */
export function dashboardNodeHandler(options: DashboardOptions<IncomingMessage>): DashboardNodeHandler {
  return nodeListener(options, 'dashboardNodeHandler', readForm);
}

/** The listener both the node:http and the Express adapters are made of; they differ in how a form is read. */
export function nodeListener<Request extends IncomingMessage>(
  options: DashboardOptions<Request>,
  subject: string,
  form: (req: Request) => Promise<string>,
): (req: Request, res: ServerResponse, next?: (error?: unknown) => void) => void {
  return nodeListenerOf(buildDashboard(resolveDashboardOptions(options as DashboardOptions<never>, subject)), form);
}

/**
 * A node:http listener (Connect-style `next` optional) over a built dashboard. Nothing a request
 * does ends the process: an unexpected error, thrown or rejected, is logged by the dashboard and
 * handed to `next` when given (the host app's error handler answers), else answered 500.
 */
export function nodeListenerOf<Request extends IncomingMessage>(
  core: DashboardCore,
  form: (req: Request) => Promise<string>,
): (req: Request, res: ServerResponse, next?: (error?: unknown) => void) => void {
  return (req, res, next) => {
    const request: DashboardRequest = {
      method: req.method ?? 'GET',
      url: (req as { originalUrl?: string }).originalUrl ?? req.url ?? '/',
      headers: req.headers,
      tls: (req.socket as { encrypted?: boolean } | null)?.encrypted === true,
      body: () => form(req),
      original: req,
    };
    const fail = (error: unknown): void => {
      const answer = core.failed(error, request);
      if (next) {
        try {
          return next(error);
        } catch {
          // The host's error handling threw as well: the dashboard answers after all.
        }
      }
      writeOrDrop(req, res, answer);
    };
    try {
      core
        .handle(request)
        .then((response) => {
          if (response) return writeNodeAnswer(req, res, response);
          if (next) return next();
          return writeNodeAnswer(req, res, NOT_FOUND);
        })
        .catch(fail);
    } catch (error) {
      fail(error);
    }
  };
}

/** Outside the base path, with no `next` to hand the request to. */
const NOT_FOUND: DashboardResponse = { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Not found' };

/**
 * Writes the 500 answer when nothing was sent yet; otherwise, or when even that fails, ends the
 * connection: the client sees the failure, the process goes on.
 */
export function writeOrDrop(req: IncomingMessage, res: ServerResponse, response: DashboardResponse): void {
  try {
    if (!res.headersSent) return writeNodeAnswer(req, res, response);
  } catch {
    // Falls through: the connection is ended below.
  }
  res.destroy();
}

/** The body as text, read by the HTTP edge under the form's limits. @throws HttpBodyError */
export async function readForm(req: IncomingMessage): Promise<string> {
  return (await readNodeBody(req, FORM_LIMITS)).toString('utf8');
}
