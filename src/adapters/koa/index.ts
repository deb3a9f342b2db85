/** acct-webhook/koa: the receiver as Koa 3 middleware (docs/frameworks.md). */
import type { WebhookSecret } from '../../signing/signature-scheme.js';
import { NODE_PLATFORM } from '../../platform/node.js';
import type { WebhookHandlerOptions } from '../../receiver/options.js';
import { buildKoaWebhooks, type KoaWebhookMiddleware } from './middleware.js';

export type { KoaWebhookMiddleware } from './middleware.js';

/**
 * Koa 3 middleware for the platform's webhooks: `app.use(koaWebhooks(options))` answers on
 * `options.path` (default `/webhooks`) and passes every other path on. Mounted before a body
 * parser it reads the raw body itself (under `maxBodyBytes` and `bodyTimeoutMs`); after one that
 * keeps the raw text (`@koa/bodyparser`'s `ctx.request.rawBody`) it verifies that copy; after one
 * that kept nothing the answer is 500 `BODY_ALREADY_PARSED`, with the fix in the log line.
 *
 * @example
 * const webhooks = koaWebhooks({ secret: process.env.WEBHOOK_SECRET!, handlers: hooks });
 * app.use(webhooks);
 * app.use(bodyParser()); // the rest of the app
 */
export function koaWebhooks(options: WebhookSecret | WebhookHandlerOptions): KoaWebhookMiddleware {
  return buildKoaWebhooks(options, NODE_PLATFORM);
}
