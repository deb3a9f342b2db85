import type { WebhookSecret } from '../signature.js';
import { ReceiverError } from './errors.js';
import { openDefaultReceiverStore } from '../defaults/stores.js';
import { resolveHandlerOptions, type WebhookHandlerOptions } from './options.js';
import { buildReceiver, type Receiver } from './receive.js';
import type { WebhookResponse } from './answers.js';

/** The handler `fetchHandler` returns, with its receiver attached. */
export type FetchWebhookHandler = ((request: Request) => Promise<Response>) & {
  /** The receiver behind the handler: its store, `reprocess`, `ready`, `close`. */
  readonly receiver: Receiver;
};

/**
 * A web-standard handler, `(Request) => Promise<Response>`: for Hono, `Bun.serve`, `Deno.serve`
 * (each tested), or anything with the Fetch API. The framework routes; this answers whatever
 * reaches it. Build it once, at module level, never per request.
 *
 * @example
 * const handler = fetchHandler({ secret: process.env.WEBHOOK_SECRET!, handlers });
 * app.post('/webhooks', (c) => handler(c.req.raw));   // Hono
 * Bun.serve({ port: 3000, fetch: handler });          // Bun: every path answered by the receiver
 */
export function fetchHandler(options: WebhookSecret | WebhookHandlerOptions): FetchWebhookHandler {
  const { receiver: resolved, body } = resolveHandlerOptions(options, 'fetchHandler', openDefaultReceiverStore);
  const receiver = buildReceiver(resolved);
  const handler = async (request: Request): Promise<Response> => {
    const rawBody = request.method === 'POST' ? readLimited(request, body.maxBodyBytes) : '';
    return toResponse(await receiver.receive({ rawBody, headers: request.headers, method: request.method }));
  };
  return Object.assign(handler, { receiver });
}

function toResponse({ status, headers, body }: WebhookResponse): Response {
  return new Response(JSON.stringify(body), { status, headers });
}

/** Reads the body up to the limit, stopping (not buffering on) as soon as it is exceeded. */
async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) throw tooLarge(limit);
  if (!request.body) return new Uint8Array(0);
  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

function tooLarge(limit: number): ReceiverError {
  return new ReceiverError('PAYLOAD_TOO_LARGE', `The body is larger than ${limit} bytes`, { max_body_bytes: limit });
}
