import { createServer, type Server } from 'node:http';
import { webhookHandler, type IdempotencyStore, type Webhooks } from 'acct-webhook';
import express from 'express';
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

/** The Express app: POST {{webhookPath}} receives the platform's webhooks. */
export function createApp(options: AppOptions): WebhookApp {
  const receiver = webhookHandler({
    secret: options.secret,
    handlers: options.webhooks,
    store: options.store,
    logger: options.logger,
  });
  const app = express();
  // First, before any body parser: the signature covers the raw bytes of the body, and the
  // handler reads them itself. It answers on {{webhookPath}} and passes every other path on.
  app.use(receiver);
  // For load balancers and orchestrators: the process is up; the store answers.
  app.get(HEALTH_PATH, (_req, res) => {
    const { status, body } = health();
    res.status(status).json(body);
  });
  app.get(READY_PATH, async (_req, res) => {
    const { status, body } = await readiness(options.store);
    res.status(status).json(body);
  });
  // The rest of your app goes after it, e.g.:
  // app.use(express.json());
  const server = createServer(app);
  return {
    server,
    ready: () => receiver.receiver.ready(),
    close: () => closeGracefully(server, receiver.receiver, options.store),
  };
}
