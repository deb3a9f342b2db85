import type { WebhookSecret } from '../signature-scheme.js';
import type { WebhookHandlerOptions } from '../receiver/options.js';
import { buildFetchHandler, type FetchWebhookHandler } from '../receiver/fetch-handler.js';
import { WEB_PLATFORM } from './platform.js';

/**
 * The Fetch API handler for runtimes without Node's modules: Cloudflare Workers (with or
 * without `nodejs_compat`), Vercel's and Next.js's edge runtime, Deno Deploy. The same handler
 * as acct-webhook's `fetchHandler`, the same options and answers, with two differences: the
 * signature is verified with WebCrypto (each secret's key imported once, on the first request),
 * and `store` is required (a Worker has no file for the SQLite default). Nothing it loads
 * imports a Node.js module. The default logger writes JSON lines to `console.error`.
 *
 * @throws ConfigurationError `INVALID_CONFIGURATION` (option `store`) without a store
 * @example
 * // src/index.ts (Cloudflare Worker)
 * import { fetchHandler, memoryStore, Webhooks } from 'acct-webhook/web';
 *
 * const handlers = new Webhooks().on('invoice.paid', async (event) => {
 *   console.log('paid', event.data.object.id);
 * });
 * let handler: ReturnType<typeof fetchHandler> | undefined;
 * export default {
 *   fetch(request: Request, env: { WEBHOOK_SECRET: string }) {
 *     handler ??= fetchHandler({ secret: env.WEBHOOK_SECRET, handlers, store: memoryStore() });
 *     return handler(request);
 *   },
 * };
 */
export function fetchHandler(options: WebhookSecret | WebhookHandlerOptions): FetchWebhookHandler {
  return buildFetchHandler(options, WEB_PLATFORM);
}
