/** acct-webhook/hono: the receiver as a Hono 4 handler (docs/frameworks.md). */
export { honoWebhooks, type HonoWebhookHandler } from '../receiver/hono.js';
