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

/** What a 500 `BODY_ALREADY_PARSED` from `fetchHandler` tells the user to change. */
const FETCH_BODY_FIX =
  'Pass the Request to fetchHandler untouched: in a Next.js route, `export const POST = fetchHandler(…)` or `return handler(request)` before anything calls request.json(), request.text() or request.formData(). Code that needs the body too reads a copy: `const copy = request.clone()` before the handler runs.';

/**
 * The Fetch API adapter on a platform: Node's `fetchHandler` (acct-webhook) and the one of
 * acct-webhook/web differ only in it. The body is read by the HTTP edge under `maxBodyBytes`
 * and `bodyTimeoutMs`; a body read or locked before is refused with `BODY_ALREADY_PARSED`. Nothing here imports a Node.js module at run time.
 */
export function buildFetchHandler(options: WebhookSecret | WebhookHandlerOptions, platform: ReceiverPlatform): FetchWebhookHandler {
  const { receiver: resolved, body } = resolveHandlerOptions(options, 'fetchHandler', platform);
  const receiver = buildReceiver(resolved);
  const limits = bodyLimits(body);
  const handler = async (request: Request): Promise<Response> => {
    const rawBody = request.method === 'POST' ? readWebBody(request, limits, FETCH_BODY_FIX) : '';
    return webhookFetchResponse(await receiver.receive({ rawBody, headers: request.headers, method: request.method, url: request.url }));
  };
  return Object.assign(handler, { receiver });
}
