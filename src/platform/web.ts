import { ConfigurationError } from '../kernel/errors.js';
import type { IdempotencyStore } from '../ports/idempotency-store.js';
import { resolveReceiverOptions, type ReceiverOptions, type ReceiverPlatform } from '../receiver/options.js';
import { buildReceiver, type Receiver } from '../receiver/receive.js';
import type { WebhookSecret } from '../signing/signature-scheme.js';
import { webHmac } from '../signing/web-signature.js';
import { webStandardKeys } from '../signing/web-standard-webhooks.js';

/**
 * The receiver where Node's modules may be absent (Cloudflare Workers with or without
 * nodejs_compat, edge runtimes): HMACs with WebCrypto, and no default store. A Worker has no
 * file for the SQLite default, and a store of its own memory would forget every event id when
 * the isolate is recycled, so a store is required (docs/cloudflare-workers.md).
 */
export const WEB_PLATFORM: ReceiverPlatform = {
  openDefaultStore: (database: string | undefined): IdempotencyStore => {
    throw new ConfigurationError({
      option: database === undefined ? 'store' : 'database',
      reason:
        'is required in acct-webhook/web, which has no SQLite file: give store (memoryStore() for tests and a single instance, ' +
        'or a store of your own that outlives the isolate)',
    });
  },
  hmac: webHmac,
  standard: webStandardKeys,
};

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
