/** acct-webhook/koa: the receiver as Koa 3 middleware (docs/frameworks.md). */
export { koaWebhooks, type KoaWebhookMiddleware } from './middleware.js';
