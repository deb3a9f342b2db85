import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookSecret } from '../../signing/signature-scheme.js';
import { readConsumableNodeBody } from '../../http/body.js';
import { requestPath } from '../../http/path.js';
import { answerNodeRequest, bodyLimits } from '../shared.js';
import { NODE_PLATFORM } from '../../platform/node.js';
import { resolveHandlerOptions, type BodyOptions, type WebhookHandlerOptions } from '../../receiver/options.js';
import { buildReceiver, type Receiver } from '../../receiver/receive.js';

/** The parts of Express's request this adapter reads; any Express `Request` fits. */
export interface ExpressLikeRequest extends IncomingMessage {
  path?: string;
  route?: unknown;
  body?: unknown;
  /** Set by some frameworks and `express.json({ verify })` recipes: the unparsed body. */
  rawBody?: unknown;
}

/** The middleware `webhookHandler` returns: an Express request handler with its receiver attached. */
export type ExpressWebhookHandler = ((req: ExpressLikeRequest, res: ServerResponse, next: (error?: unknown) => void) => void) & {
  /** The receiver behind the middleware: its store, `reprocess`, `ready`, `close`. */
  readonly receiver: Receiver;
};

/**
 * Express middleware for the platform's webhooks. Reads the raw body itself, verifies, parses,
 * dedupes and routes to your handlers. Express is not imported: the middleware is typed on
 * node:http, which every Express request and response extends.
 *
 * - `app.use(webhookHandler(secret))` answers on `options.path` (default `/webhooks`) and passes
 *   every other path on with `next()`.
 * - `app.post('/any/path', webhookHandler(options))` answers on that route.
 *
 * Mount it before `express.json()`, or on a path that parser does not see: the signature covers
 * the raw bytes. If a parser got there first, a raw copy in `req.rawBody` or a Buffer `req.body`
 * (`express.raw`) is used; otherwise the answer is a loud 500 `BODY_ALREADY_PARSED`.
 *
 * @example
 * const hooks = new Webhooks().on('invoice.paid', (event) => markPaid(event.data.object.id));
 * app.use(webhookHandler({ secret: process.env.WEBHOOK_SECRET!, handlers: hooks }));
 * app.use(express.json()); // the rest of the app
 */
export function webhookHandler(options: WebhookSecret | WebhookHandlerOptions): ExpressWebhookHandler {
  const { receiver: resolved, body } = resolveHandlerOptions(options, 'webhookHandler', NODE_PLATFORM);
  const receiver = buildReceiver(resolved);
  const fix = 'Mount webhookHandler before express.json() (or any body parser), or keep a raw copy in req.rawBody.';
  return Object.assign(expressMiddleware(receiver, body, fix), { receiver });
}

/**
 * The middleware behind `webhookHandler`, for a receiver built elsewhere (the NestJS module
 * mounts it on Nest's Express instance). `fix` is what the log line of a 500
 * `BODY_ALREADY_PARSED` tells the user to change, in the terms of their framework.
 */
export function expressMiddleware(receiver: Receiver, body: BodyOptions, fix: string) {
  const limits = bodyLimits(body);
  return (req: ExpressLikeRequest, res: ServerResponse, next: (error?: unknown) => void): void => {
    // On a route (app.post('/x', …)) Express has matched the path already; under app.use it has not.
    if (req.route === undefined && requestPath(req.path ?? req.url) !== body.path) return next();
    void answerNodeRequest(receiver, req, res, req.method === 'POST' ? readConsumableNodeBody(req, limits, fix) : '');
  };
}
