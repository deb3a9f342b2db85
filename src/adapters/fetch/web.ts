import type { WebhookSecret } from '../../signing/signature-scheme.js';
import type { WebhookHandlerOptions } from '../../receiver/options.js';
import { buildFetchHandler, type FetchWebhookHandler } from './handler.js';
import { WEB_PLATFORM } from '../../platform/web.js';

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
