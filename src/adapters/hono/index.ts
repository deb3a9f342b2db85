/** acct-webhook/hono: the receiver as a Hono 4 handler on Node.js (docs/frameworks.md); in a Worker, acct-webhook/web's `honoWebhooks`. */
import type { WebhookSecret } from '../../signing/signature-scheme.js';
import { NODE_PLATFORM } from '../../platform/node.js';
import type { WebhookHandlerOptions } from '../../receiver/options.js';
import { buildHonoWebhooks, type HonoWebhookHandler } from './handler.js';

export type { HonoRequestContext, HonoWebhookHandler } from './handler.js';

/**
 * A Hono 4 handler for the platform's webhooks: `app.post('/webhooks', honoWebhooks(options))`.
 * Hono routes; this reads the raw body (under `maxBodyBytes` and `bodyTimeoutMs`) and answers.
 * On Node.js (`@hono/node-server`), Bun and Deno: it verifies with node:crypto and stores in
 * `./webhook-events.db` by default. In a Cloudflare Worker take the `honoWebhooks` of
 * `acct-webhook/web` — the same handler on WebCrypto, a store required (docs/frameworks.md). If a
 * middleware before it read the body through `c.req` (`json()`, `text()`: Hono keeps the text),
 * that copy is verified; if one read the raw `Request` (`c.req.raw.json()`), which keeps nothing,
 * the answer is 500 `BODY_ALREADY_PARSED`. Build it once, at module level.
 *
 * @example
 * const webhooks = honoWebhooks({ secret: process.env.WEBHOOK_SECRET!, handlers: hooks });
 * app.post('/webhooks', webhooks);
 * // shutting down: await webhooks.receiver.close();
 */
export function honoWebhooks(options: WebhookSecret | WebhookHandlerOptions): HonoWebhookHandler {
  return buildHonoWebhooks(options, NODE_PLATFORM);
}
