import type { WebhookSecret } from '../../signing/signature-scheme.js';
import { NODE_PLATFORM } from '../../platform/node.js';
import type { WebhookHandlerOptions } from '../../receiver/options.js';
import { buildFetchHandler, type FetchWebhookHandler } from './handler.js';

export type { FetchWebhookHandler } from './handler.js';

/**
 * A web-standard handler, `(Request) => Promise<Response>`: for Hono, `Bun.serve`, `Deno.serve`
 * (each tested), Next.js route handlers, or anything with the Fetch API. The framework routes;
 * this answers whatever reaches it. Build it once, at module level, never per request. On
 * Node.js, Bun and Deno it verifies with node:crypto and stores in `./webhook-events.db` by
 * default; on Cloudflare Workers and other runtimes without Node's modules, take the
 * `fetchHandler` of `acct-webhook/web` (WebCrypto, a store required).
 *
 * @example
 * const handler = fetchHandler({ secret: process.env.WEBHOOK_SECRET!, handlers });
 * app.post('/webhooks', (c) => handler(c.req.raw));   // Hono
 * Bun.serve({ port: 3000, fetch: handler });          // Bun: every path answered by the receiver
 */
export function fetchHandler(options: WebhookSecret | WebhookHandlerOptions): FetchWebhookHandler {
  return buildFetchHandler(options, NODE_PLATFORM);
}
