import type { WebhookSecret } from '../../signing/signature-scheme.js';
import type { WebhookHandlerOptions } from '../../receiver/options.js';
import { buildHonoWebhooks, type HonoWebhookHandler } from './handler.js';
import { WEB_PLATFORM } from '../../platform/web.js';

/**
 * acct-webhook/hono's `honoWebhooks` for runtimes without Node's modules (a Hono app in a
 * Cloudflare Worker, with or without nodejs_compat): the same handler, verifying with WebCrypto
 * (keys imported once per secret), `store` required, logging to `console.error`. It imports
 * nothing of hono at run time; Hono's `Context` fits its parameter.
 *
 * @throws ConfigurationError `INVALID_CONFIGURATION` (option `store`) without a store
 * @example
 * // A Worker: docs/cloudflare-workers.md
 * const app = new Hono<{ Bindings: { WEBHOOK_SECRET: string } }>();
 * let webhooks: HonoWebhookHandler | undefined;
 * app.post('/webhooks', (c) => (webhooks ??= honoWebhooks({ secret: c.env.WEBHOOK_SECRET, handlers, store: memoryStore() }))(c));
 */
export function honoWebhooks(options: WebhookSecret | WebhookHandlerOptions): HonoWebhookHandler {
  return buildHonoWebhooks(options, WEB_PLATFORM);
}
