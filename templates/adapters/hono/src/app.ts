import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { type IdempotencyStore, type Webhooks } from 'acct-webhook';
import { honoWebhooks } from 'acct-webhook/hono';
import { Hono } from 'hono';
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
  /** The HTTP server, not yet listening: `server.listen(port)`. */
  readonly server: Server;
  /**
   * Resolves when the store is usable (for PostgreSQL: connected, tables created or migrated);
   * rejects with why not. The server calls it before it listens.
   */
  ready(): Promise<void>;
  /** Stops accepting requests, lets deliveries in flight finish, closes the store. */
  close(): Promise<void>;
}

/** The Hono app on Node.js (@hono/node-server): POST {{webhookPath}} receives the platform's webhooks. */
export function createApp(options: AppOptions): WebhookApp {
  const webhooks = honoWebhooks({
    secret: options.secret,
    handlers: options.webhooks,
    store: options.store,
    logger: options.logger,
  });
  const app = new Hono();
  // The handler reads the raw body itself (the signature covers those exact bytes): no
  // middleware on this route may read it before, other routes parse as they like, e.g.:
  // app.post('/orders', async (c) => c.json(await c.req.json()));
  app.post('{{webhookPath}}', webhooks);
  // For load balancers and orchestrators: the process is up; the store answers.
  app.get(HEALTH_PATH, (c) => {
    const { status, body } = health();
    return c.json(body, status);
  });
  app.get(READY_PATH, async (c) => {
    const { status, body } = await readiness(options.store);
    return c.json(body, status);
  });
  // @hono/node-server turns node:http's requests into Fetch requests for Hono and back.
  const server = createServer(getRequestListener(app.fetch));
  return {
    server,
    ready: () => webhooks.receiver.ready(),
    close: () => closeGracefully(server, webhooks.receiver, options.store),
  };
}
