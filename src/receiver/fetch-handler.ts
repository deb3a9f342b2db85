import { ReceiverError } from './errors.js';
import { resolveHandlerOptions, type ReceiverPlatform, type WebhookHandlerOptions } from './options.js';
import { buildReceiver, type Receiver } from './receive.js';
import type { WebhookResponse } from './answers.js';
import type { WebhookSecret } from '../signature-scheme.js';
import { concatBytes } from '../bytes.js';

/** The handler `fetchHandler` returns, with its receiver attached. */
export type FetchWebhookHandler = ((request: Request) => Promise<Response>) & {
  /** The receiver behind the handler: its store, `reprocess`, `ready`, `close`. */
  readonly receiver: Receiver;
};

/**
 * The Fetch API adapter on a platform: Node's `fetchHandler` (acct-webhook) and the one of
 * acct-webhook/web differ only in it. Nothing here imports a Node.js module.
 */
export function buildFetchHandler(options: WebhookSecret | WebhookHandlerOptions, platform: ReceiverPlatform): FetchWebhookHandler {
  const { receiver: resolved, body } = resolveHandlerOptions(options, 'fetchHandler', platform);
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
  return concatBytes(chunks, size);
}

function tooLarge(limit: number): ReceiverError {
  return new ReceiverError('PAYLOAD_TOO_LARGE', `The body is larger than ${limit} bytes`, { max_body_bytes: limit });
}
