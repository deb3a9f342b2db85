import type { WebhookSecret } from '../signature-scheme.js';
import type { WebhookHandlerOptions } from '../receiver/options.js';
import { buildFetchHandler, type FetchWebhookHandler } from '../receiver/fetch-handler.js';
import { WEB_PLATFORM } from './platform.js';

/**
 * acct-webhook's `fetchHandler` for runtimes without Node's modules (Cloudflare Workers, edge
 * runtimes): verifies with WebCrypto (keys imported once), needs `store`, logs to `console.error`.
 *
 * @throws ConfigurationError `INVALID_CONFIGURATION` (option `store`) without a store
 * @example
 * // A Worker: docs/cloudflare-workers.md
 * handler ??= fetchHandler({ secret: env.WEBHOOK_SECRET, handlers, store: memoryStore() });
 */
export function fetchHandler(options: WebhookSecret | WebhookHandlerOptions): FetchWebhookHandler {
  return buildFetchHandler(options, WEB_PLATFORM);
}
