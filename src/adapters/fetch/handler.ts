import { readWebBody } from '../../http/body.js';
import { bodyLimits, webhookFetchResponse } from '../shared.js';
import { resolveHandlerOptions, type ReceiverPlatform, type WebhookHandlerOptions } from '../../receiver/options.js';
import { buildReceiver, type Receiver } from '../../receiver/receive.js';
import type { WebhookSecret } from '../../signing/signature-scheme.js';

/** The handler `fetchHandler` returns, with its receiver attached. */
export type FetchWebhookHandler = ((request: Request) => Promise<Response>) & {
  /** The receiver behind the handler: its store, `reprocess`, `ready`, `close`. */
  readonly receiver: Receiver;
};

/**
 * The Fetch API adapter on a platform: Node's `fetchHandler` (acct-webhook) and the one of
 * acct-webhook/web differ only in it. The body is read by the HTTP edge under `maxBodyBytes`
 * and `bodyTimeoutMs`. Nothing here imports a Node.js module at run time.
 */
export function buildFetchHandler(options: WebhookSecret | WebhookHandlerOptions, platform: ReceiverPlatform): FetchWebhookHandler {
  const { receiver: resolved, body } = resolveHandlerOptions(options, 'fetchHandler', platform);
  const receiver = buildReceiver(resolved);
  const limits = bodyLimits(body);
  const handler = async (request: Request): Promise<Response> => {
    const rawBody = request.method === 'POST' ? readWebBody(request, limits) : '';
    return webhookFetchResponse(await receiver.receive({ rawBody, headers: request.headers, method: request.method }));
  };
  return Object.assign(handler, { receiver });
}
