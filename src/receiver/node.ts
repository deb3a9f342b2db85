import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookSecret } from '../signature.js';
import { failed } from './answers.js';
import { ReceiverError } from './errors.js';
import { readRawBody } from './body.js';
import { writeResponse, requestPath } from './node-response.js';
import type { WebhookHandlerOptions } from './options.js';
import { createReceiver, type Receiver } from './receive.js';

export type NodeWebhookHandler = ((req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void) & {
  /** The receiver behind the handler: its store, `reprocess`, `close`. */
  readonly receiver: Receiver;
};

/**
 * A node:http request listener. It answers on `options.path` (default `/webhooks`); other paths
 * go to `next` when given (Connect-style), or get 404.
 *
 * @example
 * http.createServer(nodeHandler({ secret, handlers })).listen(3000);
 */
export function nodeHandler(options: WebhookSecret | WebhookHandlerOptions): NodeWebhookHandler {
  const receiver = createReceiver(options);
  const { path } = receiver.options;
  const handler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void => {
    if (requestPath(req.url) !== path) {
      if (next) return next();
      const error = new ReceiverError('NOT_FOUND', `Nothing here; webhooks are received at ${path}`, { path });
      return writeResponse(req, res, failed(error));
    }
    void handleNodeRequest(receiver, req, res, () => readRawBody(req, receiver.options));
  };
  return Object.assign(handler, { receiver });
}

/** Shared by the node:http and Express adapters: read the body, receive, write the answer. */
export async function handleNodeRequest(
  receiver: Receiver,
  req: IncomingMessage,
  res: ServerResponse,
  body: () => Promise<Buffer | string>,
): Promise<void> {
  try {
    if (req.method !== 'POST') {
      return writeResponse(req, res, await receiver.receive({ rawBody: '', headers: req.headers, method: req.method }));
    }
    const rawBody = await body();
    writeResponse(req, res, await receiver.receive({ rawBody, headers: req.headers, method: req.method }));
  } catch (error) {
    const answer = error instanceof ReceiverError ? error : new ReceiverError('INTERNAL_ERROR', 'Unexpected receiver failure', {}, { cause: error });
    receiver.options.logger[answer.code === 'INTERNAL_ERROR' ? 'error' : 'warn']({ err: error, code: answer.code, outcome: 'rejected' }, 'webhook delivery');
    if (!res.headersSent) writeResponse(req, res, failed(answer));
  }
}
