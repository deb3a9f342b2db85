import { createServer, type IncomingMessage } from 'node:http';
import type { WebhookEvent } from '../../src/events/schemas.js';
import { nodeHandler } from '../../src/adapters/node/index.js';
import type { ReceiveOutcome } from '../../src/receiver/outcome.js';
import { Webhooks } from '../../src/receiver/webhooks.js';
import { memoryStore } from '../../src/stores/memory/idempotency-store.js';
import { closeServer, listenOnLoopback } from './servers.js';

/**
 * A fresh receiver of this package (nodeHandler, in-memory dedupe) on a loopback port, as a user
 * runs it: it records the events its handler ran for, every request's headers, and the outcome
 * of every delivery (its `onOutcome` reports).
 */
export interface TestReceiver {
  url: string;
  handled: WebhookEvent[];
  headers: IncomingMessage['headers'][];
  outcomes: ReceiveOutcome[];
  close(): Promise<void>;
}

export async function startReceiver(secret: string | string[]): Promise<TestReceiver> {
  const handled: WebhookEvent[] = [];
  const headers: IncomingMessage['headers'][] = [];
  const outcomes: ReceiveOutcome[] = [];
  const handler = nodeHandler({
    secret,
    store: memoryStore(),
    handlers: new Webhooks().onAny((event) => void handled.push(event)),
    logger: false,
    onOutcome: (outcome) => outcomes.push(outcome),
  });
  const server = createServer((req, res) => {
    headers.push(req.headers);
    handler(req, res);
  });
  const base = await listenOnLoopback(server);
  return {
    url: `${base}/webhooks`,
    handled,
    headers,
    outcomes,
    close: async () => {
      await closeServer(server);
      await handler.receiver.close();
    },
  };
}
