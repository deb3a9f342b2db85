/** acct-webhook/fastify: the receiver as a Fastify 5 plugin (docs/frameworks.md). */
import { NODE_PLATFORM } from '../../platform/node.js';
import { createFastifyWebhooks } from './plugin.js';

export type { FastifyWebhooksOptions } from './plugin.js';

/**
 * A Fastify 5 plugin for the platform's webhooks. It answers on `options.path` (default
 * `/webhooks`, any method: not POST is 405) in a context of its own, where the raw body is read
 * by the HTTP edge (under `maxBodyBytes` and `bodyTimeoutMs`) instead of a parser: the app's JSON
 * parser and its other routes are untouched. The receiver is `app.webhookReceiver` (for the inbox
 * API and `reprocess`), and it is closed with the app (`onClose`). Register it once per app.
 * Fastify's `prefix` goes before `path` (`{ prefix: '/api' }` serves `/api/webhooks`); without a
 * `logger` option the receiver logs through `app.log` when the app has a logger.
 *
 * @example
 * const app = Fastify();
 * await app.register(fastifyWebhooks, { path: '/webhooks', secret: process.env.WEBHOOK_SECRET!, handlers: hooks });
 * app.post('/orders', async (request) => request.body); // still JSON-parsed
 */
export const fastifyWebhooks = createFastifyWebhooks(NODE_PLATFORM);
