import type { Server } from 'node:http';
import { type IdempotencyStore, type Webhooks } from 'acct-webhook';
import { fastifyWebhooks } from 'acct-webhook/fastify';
import Fastify from 'fastify';
import type { Logger } from 'pino';
import { HEALTH_PATH, health, READY_PATH, readiness } from './health.js';
import { closeGracefully } from './lifecycle.js';

export interface AppOptions {
  /** The webhook's signing secret (whsec_…). */
  secret: string;
  /** Remembers handled event ids, so a redelivered event never runs its handlers twice. */
  store: IdempotencyStore;
  webhooks: Webhooks;
  /** Where the receiver logs each delivery; `false` for silence (the tests). */
  logger: Logger | false;
}

export interface WebhookApp {
  /** The HTTP server, not yet listening: `server.listen(port)`, after `ready()`. */
  readonly server: Server;
  /**
   * Resolves when Fastify has loaded its plugins (the webhook route exists only then) and the
   * store is usable (for PostgreSQL: connected, tables created or migrated); rejects with why not.
   * The server calls it before it listens.
   */
  ready(): Promise<void>;
  /** Stops accepting requests, lets deliveries in flight finish, closes the receiver and the store. */
  close(): Promise<void>;
}

/** The Fastify app: POST {{webhookPath}} receives the platform's webhooks. */
export function createApp(options: AppOptions): WebhookApp {
  const app = Fastify();
  // The plugin reads the raw body of its own route itself (the signature covers those exact
  // bytes): the app's JSON parser and its other routes are untouched.
  void app.register(fastifyWebhooks, {
    path: '{{webhookPath}}',
    secret: options.secret,
    handlers: options.webhooks,
    store: options.store,
    logger: options.logger,
  });
  // For load balancers and orchestrators: the process is up; the store answers.
  app.get(HEALTH_PATH, async (_request, reply) => {
    const { status, body } = health();
    return reply.code(status).send(body);
  });
  app.get(READY_PATH, async (_request, reply) => {
    const { status, body } = await readiness(options.store);
    return reply.code(status).send(body);
  });
  // The rest of your app goes beside it.
  return {
    server: app.server,
    ready: async () => {
      await app.ready();
      await app.webhookReceiver.ready();
    },
    // app.close() closes the receiver (the plugin's onClose); the store was opened here.
    close: () => closeGracefully(app.server, { close: () => app.close() }, options.store),
  };
}
