import { createServer, type Server } from 'node:http';
import { fetchHandler, type IdempotencyStore, type Webhooks } from 'acct-webhook';
import type { Logger } from 'pino';
import { toNodeListener } from './fetch-bridge.js';
import { HEALTH_PATH, health, READY_PATH, readiness, type CheckAnswer } from './health.js';
import { closeGracefully } from './lifecycle.js';

/** Where the platform delivers; set the same URL path when you register the webhook. */
export const WEBHOOK_PATH = '{{webhookPath}}';

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

/**
 * A Fetch-API receiver, `(Request) => Promise<Response>`, served here by node:http. The same
 * `receive` function works in Hono (`app.post(WEBHOOK_PATH, (c) => receive(c.req.raw))`), and
 * with `Bun.serve` or `Deno.serve` (acct-webhook's docs/runtimes.md).
 */
export function createApp(options: AppOptions): WebhookApp {
  const receive = fetchHandler({
    secret: options.secret,
    handlers: options.webhooks,
    store: options.store,
    logger: options.logger,
  });
  // fetchHandler answers whatever reaches it, so the routing is ours: only WEBHOOK_PATH.
  const answer = ({ status, body }: CheckAnswer): Response => Response.json(body, { status });
  const route = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    if (path === WEBHOOK_PATH) return receive(request);
    // For load balancers and orchestrators: the process is up; the store answers.
    if (request.method === 'GET' && path === HEALTH_PATH) return answer(health());
    if (request.method === 'GET' && path === READY_PATH) return answer(await readiness(options.store));
    return Response.json({ error: 'not found' }, { status: 404 });
  };
  const server = createServer(toNodeListener(route));
  return {
    server,
    ready: () => receive.receiver.ready(),
    close: () => closeGracefully(server, receive.receiver, options.store),
  };
}
