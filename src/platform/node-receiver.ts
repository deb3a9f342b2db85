import { resolveReceiverOptions, type ReceiverOptions } from '../receiver/options.js';
import { buildReceiver, type Receiver } from '../receiver/receive.js';
import type { WebhookSecret } from '../signing/signature.js';
import { NODE_PLATFORM } from './node.js';

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
