import type { WebhookSecret } from '../signing/signature-scheme.js';
import { resolveReceiverOptions, type ReceiverOptions } from '../receiver/options.js';
import { buildReceiver, type Receiver } from '../receiver/receive.js';
import { WEB_PLATFORM } from './web.js';

/**
 * The framework-free receiver for runtimes without Node's modules (see acct-webhook/web's
 * `fetchHandler`): WebCrypto, and `store` required. Build it once, never per request.
 *
 * @throws ConfigurationError `INVALID_CONFIGURATION` (option `store`) without a store
 * @example
 * const receiver = createReceiver({ secret: env.WEBHOOK_SECRET, handlers, store: memoryStore() });
 * const { status, headers, body } = await receiver.receive({ rawBody, headers: request.headers, method: 'POST' });
 */
export function createReceiver(options: WebhookSecret | ReceiverOptions): Receiver {
  return buildReceiver(resolveReceiverOptions(options, 'createReceiver', WEB_PLATFORM));
}
