import type { IncomingMessage, ServerResponse } from 'node:http';
import { nodeListener, readForm } from './node.js';
import type { DashboardOptions } from './options.js';

/** The request as Express hands it over: node's, with the parts Express adds that the dashboard reads. */
export interface ExpressDashboardRequest extends IncomingMessage {
  originalUrl?: string;
  /** Set when a body parser ran before the dashboard. */
  body?: unknown;
}

/** Express middleware: `(req, res, next)`. */
export type ExpressDashboardHandler = (req: ExpressDashboardRequest, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * The dashboard as Express middleware (Express 4 and 5). Requests outside `basePath` go to
 * `next`; so does an unexpected error, after the dashboard logged it (`logger`), so that the
 * app's error handler answers it. `authorize` gets Express's `req`, with whatever the app's
 * session middleware put on it.
 *
 * @example
 * app.use(dashboard({ dispatcher, receiver: handler.receiver, basePath: '/admin/webhooks', authorize: (req) => req.user?.role === 'admin' }));
 */
export function dashboard<Request extends ExpressDashboardRequest = ExpressDashboardRequest>(options: DashboardOptions<Request>): ExpressDashboardHandler {
  return nodeListener(options, 'dashboard', formOf) as ExpressDashboardHandler;
}

/** The form: parsed already by the app's body parser (`express.urlencoded()`), or read here. */
export function formOf(req: ExpressDashboardRequest): Promise<string> {
  const parsed = req.body;
  if (typeof parsed === 'string') return Promise.resolve(parsed);
  if (typeof parsed === 'object' && parsed !== null && !Buffer.isBuffer(parsed) && req.readableEnded) {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(parsed)) {
      for (const item of Array.isArray(value) ? value : [value]) form.append(name, String(item));
    }
    return Promise.resolve(form.toString());
  }
  return readForm(req);
}
