import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RawPayload } from '../signature-scheme.js';
import type { WebhookResponse } from './answers.js';
import type { Receiver } from './receive.js';

/** How long a refused body may keep streaming in (discarded) before the connection is cut. */
export const UNREAD_BODY_GRACE_MS = 2_000;

/**
 * Shared by the node:http and Express adapters: receive (the core reads a body still arriving,
 * and answers and reports a read that fails), then write the answer.
 */
export function answerNodeRequest(receiver: Receiver, req: IncomingMessage, res: ServerResponse, rawBody: RawPayload | Promise<RawPayload>): void {
  void receiver.receive({ rawBody, headers: req.headers, method: req.method }).then((response) => {
    if (!res.headersSent) writeResponse(req, res, response);
  });
}

/**
 * Writes the receiver's answer. When the request body was not read to the end (refused as too
 * large or too slow), what still arrives is discarded, never buffered, for a short grace period,
 * so that the client reads the answer instead of a connection reset; a client still sending
 * after that is cut off. (Closing at once would reset the connection under a client that is
 * still writing, and it would never see the 413.)
 */
export function writeResponse(req: IncomingMessage, res: ServerResponse, response: WebhookResponse): void {
  const body = JSON.stringify(response.body);
  const headers: Record<string, string | number> = { ...response.headers, 'content-length': Buffer.byteLength(body) };
  res.writeHead(response.status, headers);
  res.end(body);
  if (!req.complete) discardRest(req);
}

function discardRest(req: IncomingMessage): void {
  req.resume();
  const cut = setTimeout(() => req.socket.destroy(), UNREAD_BODY_GRACE_MS).unref();
  const stop = () => clearTimeout(cut);
  req.once('end', stop);
  req.socket.once('close', stop);
}

/** The request path without its query string, without a trailing slash. */
export function requestPath(url: string | undefined): string {
  const path = url ?? '/';
  const query = path.indexOf('?');
  const bare = query === -1 ? path : path.slice(0, query);
  return bare.length > 1 && bare.endsWith('/') ? bare.slice(0, -1) : bare;
}
