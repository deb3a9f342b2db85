import { readWebBody } from '../http/body.js';
import type { WebhookSecret } from '../signature.js';
import { bodyLimits, webhookFetchResponse } from './adapter.js';
import { openDefaultReceiverStore } from '../defaults/stores.js';
import { resolveHandlerOptions, type WebhookHandlerOptions } from './options.js';
import { buildReceiver, type Receiver } from './receive.js';

/** The handler `fetchHandler` returns, with its receiver attached. */
export type FetchWebhookHandler = ((request: Request) => Promise<Response>) & {
  /** The receiver behind the handler: its store, `reprocess`, `ready`, `close`. */
  readonly receiver: Receiver;
};

/**
 * A web-standard handler, `(Request) => Promise<Response>`: for Hono, `Bun.serve`, `Deno.serve`
 * (each tested), or anything with the Fetch API. The framework routes; this answers whatever
 * reaches it. The body is read under `maxBodyBytes` and `bodyTimeoutMs` as in the other adapters.
 * Build it once, at module level, never per request.
 *
 * @example
 * const handler = fetchHandler({ secret: process.env.WEBHOOK_SECRET!, handlers });
 * app.post('/webhooks', (c) => handler(c.req.raw));   // Hono
 * Bun.serve({ port: 3000, fetch: handler });          // Bun: every path answered by the receiver
 */
export function fetchHandler(options: WebhookSecret | WebhookHandlerOptions): FetchWebhookHandler {
  const { receiver: resolved, body } = resolveHandlerOptions(options, 'fetchHandler', openDefaultReceiverStore);
  const receiver = buildReceiver(resolved);
  const limits = bodyLimits(body);
  const handler = async (request: Request): Promise<Response> => {
    const rawBody = request.method === 'POST' ? readWebBody(request, limits) : '';
    return webhookFetchResponse(await receiver.receive({ rawBody, headers: request.headers, method: request.method }));
  };
  return Object.assign(handler, { receiver });
}
