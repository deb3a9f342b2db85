import { createServer, type Server } from 'node:http';
import { nodeHandler, type IdempotencyStore, type Webhooks } from 'acct-webhook';
import type { Logger } from 'pino';
import { HEALTH_PATH, health, READY_PATH, readiness, type CheckAnswer } from './health.js';
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

/** A plain node:http server: POST {{webhookPath}} receives the platform's webhooks. */
export function createApp(options: AppOptions): WebhookApp {
  // nodeHandler reads the raw body itself (the signature covers those exact bytes), answers on
  // {{webhookPath}} and with 404 elsewhere. To serve more routes, call it from your own listener
  // with a third argument: receiver(req, res, () => yourRoutes(req, res)).
  const receiver = nodeHandler({
    secret: options.secret,
    handlers: options.webhooks,
    store: options.store,
    logger: options.logger,
  });
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const send = ({ status, body }: CheckAnswer): void => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    // For load balancers and orchestrators: the process is up; the store answers.
    if (request.method === 'GET' && path === HEALTH_PATH) return send(health());
    if (request.method === 'GET' && path === READY_PATH) return void readiness(options.store).then(send);
    // Everything else goes to the receiver: POST {{webhookPath}}, and its 404 for other paths.
    return receiver(request, response);
  });
  return {
    server,
    ready: () => receiver.receiver.ready(),
    close: () => closeGracefully(server, receiver.receiver, options.store),
  };
}
