import type { Context } from 'hono';
import { readWebBody } from '../http/body.js';
import { bodyAlreadyParsed } from '../http/errors.js';
import type { WebhookSecret } from '../signature.js';
import { NODE_PLATFORM } from '../defaults/node-platform.js';
import { bodyLimits, webhookFetchResponse } from './adapter.js';
import { resolveHandlerOptions, type BodyOptions, type WebhookHandlerOptions } from './options.js';
import { buildReceiver, type Receiver } from './receive.js';

/** The handler `honoWebhooks` returns: a Hono handler with its receiver attached. */
export type HonoWebhookHandler = ((c: Context) => Promise<Response>) & {
  /** The receiver behind the handler: its store, `inbox`, `reprocess`, `ready`, `close`. */
  readonly receiver: Receiver;
};

/**
 * A Hono 4 handler for the platform's webhooks: `app.post('/webhooks', honoWebhooks(options))`.
 * Hono routes; this reads the raw body (under `maxBodyBytes` and `bodyTimeoutMs`) and answers.
 * Tested on `@hono/node-server` (it verifies with node:crypto; in a Worker use acct-webhook/web's
 * `fetchHandler` inside the route: docs/frameworks.md). If a middleware before it
 * read the body through `c.req` (`json()`, `text()`: Hono keeps the text), that copy is verified;
 * if one read the raw `Request` (`c.req.raw.json()`), which keeps nothing, the answer is 500
 * `BODY_ALREADY_PARSED`. Build it once, at module level.
 *
 * @example
 * const webhooks = honoWebhooks({ secret: process.env.WEBHOOK_SECRET!, handlers: hooks });
 * app.post('/webhooks', webhooks);
 * // shutting down: await webhooks.receiver.close();
 */
export function honoWebhooks(options: WebhookSecret | WebhookHandlerOptions): HonoWebhookHandler {
  const { receiver: resolved, body } = resolveHandlerOptions(options, 'honoWebhooks', NODE_PLATFORM);
  const receiver = buildReceiver(resolved);
  const handler = async (c: Context): Promise<Response> => {
    const request = c.req.raw;
    const rawBody = request.method === 'POST' ? bodyOf(c, body) : '';
    return webhookFetchResponse(await receiver.receive({ rawBody, headers: request.headers, method: request.method }));
  };
  return Object.assign(handler, { receiver });
}

/** The raw body: read here, or the raw copy a middleware before kept in Hono's body cache. */
async function bodyOf(c: Context, limits: Pick<BodyOptions, 'maxBodyBytes' | 'bodyTimeoutMs'>): Promise<Uint8Array | string> {
  if (!c.req.raw.bodyUsed) return readWebBody(c.req.raw, bodyLimits(limits));
  const cache = (c.req as unknown as { bodyCache: { arrayBuffer?: Promise<ArrayBuffer>; text?: Promise<string> } }).bodyCache;
  if (cache.arrayBuffer) return new Uint8Array(await cache.arrayBuffer);
  if (cache.text) return cache.text;
  throw bodyAlreadyParsed('A middleware before honoWebhooks read c.req.raw directly; read the body through c.req (c.req.json(), c.req.text()), which keeps the text, or not at all in the webhook route.');
}
