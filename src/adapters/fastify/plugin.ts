import type { FastifyInstance, FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import { discardUnread, readNodeBody } from '../../http/body.js';
import { bodyLimits, webhookAnswer } from '../shared.js';
import { resolveHandlerOptions, type BodyOptions, type ReceiverPlatform, type WebhookHandlerOptions } from '../../receiver/options.js';
import { buildReceiver, type Receiver } from '../../receiver/receive.js';

/** What `app.register(fastifyWebhooks, options)` takes: the receiver's options; `path` is the route (default `/webhooks`). */
export type FastifyWebhooksOptions = WebhookHandlerOptions;

declare module 'fastify' {
  interface FastifyInstance {
    /** The receiver `fastifyWebhooks` registered: its store, `inbox`, `reprocess`, `ready`; it closes with the app. */
    webhookReceiver: Receiver;
  }
}

/**
 * The plugin `fastifyWebhooks` is, on a platform (the store a receiver given none gets, and its
 * HMAC): acct-webhook/fastify's `fastifyWebhooks` is this on Node.js (./index.ts).
 */
export function createFastifyWebhooks(platform: ReceiverPlatform): FastifyPluginCallback<FastifyWebhooksOptions> {
  return Object.assign(
    (app: FastifyInstance, options: FastifyWebhooksOptions, done: (error?: Error) => void): void => {
      // Fastify hands over its own options (prefix, logLevel) with the plugin's: those are not the
      // receiver's. The prefix is the route's, as for any plugin: `{ prefix: '/api' }` serves /api/webhooks.
      const { prefix, logLevel: _logLevel, logSerializers: _serializers, ...receiverOptions } = options as FastifyWebhooksOptions & { prefix?: string; logLevel?: unknown; logSerializers?: unknown };
      const withLogger = receiverOptions.logger === undefined && hasLogger(app) ? { ...receiverOptions, logger: app.log } : receiverOptions;
      const { receiver: resolved, body } = resolveHandlerOptions(withLogger, 'fastifyWebhooks', platform);
      const receiver = buildReceiver(resolved);
      app.decorate('webhookReceiver', receiver);
      app.addHook('onClose', () => receiver.close());
      app.register(fastifyWebhookRoute(receiver, body), prefix === undefined ? {} : { prefix });
      done();
    },
    // As fastify-plugin marks a plugin: the decorator and the onClose hook belong to the app; the route's context stays its own.
    { [Symbol.for('skip-override')]: true, [Symbol.for('fastify.display-name')]: 'acct-webhook' },
  );
}

/**
 * Whether the app was created with a logger (`Fastify({ logger: true })`, a `loggerInstance`).
 * Without one, `app.log` is Fastify's null logger, whose `child()` is the logger itself.
 */
function hasLogger(app: FastifyInstance): boolean {
  return app.log.child({}) !== app.log;
}

/**
 * The webhook route as a plugin of its own, for a receiver built elsewhere (`fastifyWebhooks`;
 * the NestJS module registers it on Nest's Fastify instance). Registered without skip-override,
 * it is a child context: the parsers removed there stay removed for this route only.
 */
export function fastifyWebhookRoute(receiver: Receiver, body: BodyOptions): FastifyPluginCallback {
  const limits = bodyLimits(body);
  return (route: FastifyInstance, _options: unknown, registered: (error?: Error) => void) => {
    route.removeAllContentTypeParsers();
    // The body is left unread for the handler, which reads the raw bytes itself.
    route.addContentTypeParser('*', (_request: FastifyRequest, _payload: unknown, parsed: (error: Error | null, body?: unknown) => void) => parsed(null));
    route.all(body.path, async (request: FastifyRequest, reply: FastifyReply) => {
      const rawBody = request.method === 'POST' ? readNodeBody(request.raw, limits) : '';
      const answer = webhookAnswer(await receiver.receive({ rawBody, headers: request.headers, method: request.method, url: request.url }));
      discardUnread(request.raw);
      return reply.code(answer.status).headers(answer.headers).send(answer.body);
    });
    registered();
  };
}
