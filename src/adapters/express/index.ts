import type { WebhookSecret } from '../../signing/signature-scheme.js';
import { NODE_PLATFORM } from '../../platform/node.js';
import type { WebhookHandlerOptions } from '../../receiver/options.js';
import { buildWebhookHandler, type ExpressWebhookHandler } from './middleware.js';

export { expressMiddleware, type ExpressLikeRequest, type ExpressWebhookHandler } from './middleware.js';

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
  return buildWebhookHandler(options, NODE_PLATFORM);
}
