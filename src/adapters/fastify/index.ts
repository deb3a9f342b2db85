/** acct-webhook/fastify: the receiver as a Fastify 5 plugin (docs/frameworks.md). */
export { fastifyWebhooks, type FastifyWebhooksOptions } from './plugin.js';
