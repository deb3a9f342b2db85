import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookSecret } from '../../signing/signature-scheme.js';
import { readConsumableNodeBody } from '../../http/body.js';
import { requestPath } from '../../http/path.js';
import { answerNodeRequest, bodyLimits } from '../shared.js';
import { resolveHandlerOptions, type BodyOptions, type ReceiverPlatform, type WebhookHandlerOptions } from '../../receiver/options.js';
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
 * The middleware `webhookHandler` builds on a platform (the store a receiver given none gets, and
 * its HMAC): acct-webhook's `webhookHandler` is this on Node.js (./index.ts).
 */
export function buildWebhookHandler(options: WebhookSecret | WebhookHandlerOptions, platform: ReceiverPlatform): ExpressWebhookHandler {
  const { receiver: resolved, body } = resolveHandlerOptions(options, 'webhookHandler', platform);
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
