import { createServer, type IncomingMessage } from 'node:http';
import { pino } from 'pino';
import type { WebhookEvent } from '../../src/events/schemas.js';
import { nodeHandler } from '../../src/receiver/node.js';
import { Webhooks } from '../../src/receiver/webhooks.js';
import { memoryStore } from '../../src/store/memory.js';
import { closeServer, listenOnLoopback } from './helpers.js';

/** One line of the receiver's delivery log. */
export interface DeliveryOutcome {
  outcome: string;
  status?: number;
  code?: string;
  eventId?: string;
  type?: string;
}

/**
 * A fresh receiver of this package (nodeHandler, in-memory dedupe) on a loopback port, as a user
 * runs it: it records the events its handler ran for, every request's headers, and the outcome
 * of every delivery from its log.
 */
export interface TestReceiver {
  url: string;
  handled: WebhookEvent[];
  headers: IncomingMessage['headers'][];
  outcomes: DeliveryOutcome[];
  close(): Promise<void>;
}

export async function startReceiver(secret: string): Promise<TestReceiver> {
  const handled: WebhookEvent[] = [];
  const headers: IncomingMessage['headers'][] = [];
  const outcomes: DeliveryOutcome[] = [];
  const logger = pino({ level: 'info' }, {
    write: (line: string) => {
      const record = JSON.parse(line) as DeliveryOutcome & { msg?: string };
      if (record.msg === 'webhook delivery') outcomes.push(record);
    },
  });
  const handler = nodeHandler({ secret, store: memoryStore(), handlers: new Webhooks().onAny((event) => void handled.push(event)), logger });
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
