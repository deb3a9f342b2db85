/** acct-webhook/hono: the receiver as a Hono 4 handler on Node.js (docs/frameworks.md); in a Worker, acct-webhook/web's `honoWebhooks`. */
export { honoWebhooks, type HonoRequestContext, type HonoWebhookHandler } from './node.js';
