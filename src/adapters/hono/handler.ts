import { readWebBody } from '../../http/body.js';
import { bodyAlreadyParsed } from '../../http/errors.js';
import type { WebhookSecret } from '../../signing/signature-scheme.js';
import { bodyLimits, webhookFetchResponse } from '../shared.js';
import { resolveHandlerOptions, type BodyOptions, type ReceiverPlatform, type WebhookHandlerOptions } from '../../receiver/options.js';
import { buildReceiver, type Receiver } from '../../receiver/receive.js';

/**
 * What the handler reads of Hono's `Context`: the raw `Request`. Written out rather than imported
 * from hono, so that acct-webhook/web's types, which include `honoWebhooks`, need no hono
 * installed; Hono's `Context` fits it, so `app.post(path, handler)` type-checks as with its own.
 */
export interface HonoRequestContext {
  /** Hono's request wrapper; the handler reads `raw`, and the body copy Hono keeps when a middleware read it. */
  readonly req: { readonly raw: Request };
}

/** The handler `honoWebhooks` returns: a Hono handler with its receiver attached. */
export type HonoWebhookHandler = ((c: HonoRequestContext) => Promise<Response>) & {
  /** The receiver behind the handler: its store, `inbox`, `reprocess`, `ready`, `close`. */
  readonly receiver: Receiver;
};

/**
 * The Hono adapter on a platform: acct-webhook/hono's `honoWebhooks` (node:crypto, the SQLite
 * default store) and acct-webhook/web's (WebCrypto, a store required) differ only in it. Hono
 * routes; this reads the raw body (under `maxBodyBytes` and `bodyTimeoutMs`) and answers.
 * Nothing here imports a Node.js module at run time.
 */
export function buildHonoWebhooks(options: WebhookSecret | WebhookHandlerOptions, platform: ReceiverPlatform): HonoWebhookHandler {
  const { receiver: resolved, body } = resolveHandlerOptions(options, 'honoWebhooks', platform);
  const receiver = buildReceiver(resolved);
  const handler = async (c: HonoRequestContext): Promise<Response> => {
    const request = c.req.raw;
    const rawBody = request.method === 'POST' ? bodyOf(c, body) : '';
    return webhookFetchResponse(await receiver.receive({ rawBody, headers: request.headers, method: request.method, url: request.url }));
  };
  return Object.assign(handler, { receiver });
}

const HONO_BODY_FIX =
  'A middleware before honoWebhooks read c.req.raw directly (or holds a reader on its body); read the body through c.req (c.req.json(), c.req.text()), which keeps the text, or not at all in the webhook route.';

/** The raw body: read here, or the raw copy a middleware before kept in Hono's body cache. */
async function bodyOf(c: HonoRequestContext, limits: Pick<BodyOptions, 'maxBodyBytes' | 'bodyTimeoutMs'>): Promise<Uint8Array | string> {
  if (!c.req.raw.bodyUsed) return readWebBody(c.req.raw, bodyLimits(limits), HONO_BODY_FIX);
  const cache = (c.req as unknown as { bodyCache: { arrayBuffer?: Promise<ArrayBuffer>; text?: Promise<string> } }).bodyCache;
  if (cache.arrayBuffer) return new Uint8Array(await cache.arrayBuffer);
  if (cache.text) return cache.text;
  throw bodyAlreadyParsed(HONO_BODY_FIX);
}
