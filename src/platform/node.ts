import type { IdempotencyStore } from '../ports/idempotency-store.js';
import { resolveReceiverOptions, type ReceiverOptions, type ReceiverPlatform } from '../receiver/options.js';
import { buildReceiver, type Receiver } from '../receiver/receive.js';
import { nodeHmac, type WebhookSecret } from '../signing/signature.js';
import { nodeStandardKeys } from '../signing/standard-webhooks.js';
import { DEFAULT_STORE_FILE, sqliteStore } from '../stores/sqlite/idempotency-store.js';

/*
 * The receiver on Node.js (and Bun and Deno, which have Node's modules): the one place that
 * chooses its backend and its HMAC. Every Node adapter is given this platform by its index.ts;
 * the receiver and the adapters themselves know no backend. The dispatcher's default is in
 * ./node-dispatcher.ts, so that importing the receiver does not load the SQLite dispatch store.
 */

/** The receiver's store when none is given: `sqliteStore(database ?? './webhook-events.db')`. */
export function openDefaultReceiverStore(database: string | undefined): IdempotencyStore {
  return sqliteStore(database ?? DEFAULT_STORE_FILE);
}

/** The receiver on Node.js: `sqliteStore('./webhook-events.db')` when no store is given, HMACs and ed25519 with node:crypto. */
export const NODE_PLATFORM: ReceiverPlatform = { openDefaultStore: openDefaultReceiverStore, hmac: nodeHmac, standard: nodeStandardKeys };

/**
 * The framework-free receiver: verify → parse → claim the event id → run the handlers →
 * complete or release → answer. Adapters (Express, node:http, Fetch) only read the body and
 * write the answer; build one receiver when your app starts, never per request.
 *
 * @example
 * const receiver = createReceiver({ secret: process.env.WEBHOOK_SECRET!, handlers, store: memoryStore() });
 * const { status, headers, body } = await receiver.receive({ rawBody, headers: request.headers, method: 'POST' });
 */
export function createReceiver(options: WebhookSecret | ReceiverOptions): Receiver {
  return buildReceiver(resolveReceiverOptions(options, 'createReceiver', NODE_PLATFORM));
}
