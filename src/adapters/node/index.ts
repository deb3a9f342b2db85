import type { WebhookSecret } from '../../signing/signature-scheme.js';
import { NODE_PLATFORM } from '../../platform/node.js';
import type { WebhookHandlerOptions } from '../../receiver/options.js';
import { buildNodeHandler, type NodeWebhookHandler } from './handler.js';

export type { NodeWebhookHandler } from './handler.js';

/**
 * A node:http request listener. It answers on `options.path` (default `/webhooks`); other paths
 * go to `next` when given (Connect-style), or get 404 `NOT_FOUND`.
 *
 * @example
 * http.createServer(nodeHandler({ secret: process.env.WEBHOOK_SECRET!, handlers })).listen(3000);
 */
export function nodeHandler(options: WebhookSecret | WebhookHandlerOptions): NodeWebhookHandler {
  return buildNodeHandler(options, NODE_PLATFORM);
}
