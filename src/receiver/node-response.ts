import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookResponse } from './answers.js';

/**
 * Writes the receiver's answer. When the request body was not read to the end (refused as too
 * large or too slow), the connection is closed after the answer instead of draining the rest.
 */
export function writeResponse(req: IncomingMessage, res: ServerResponse, response: WebhookResponse): void {
  const body = JSON.stringify(response.body);
  const headers: Record<string, string | number> = { ...response.headers, 'content-length': Buffer.byteLength(body) };
  const unread = !req.complete;
  if (unread) headers.connection = 'close';
  res.writeHead(response.status, headers);
  res.end(body);
  if (unread) res.once('finish', () => req.socket.destroySoon());
}

/** The request path without its query string, without a trailing slash. */
export function requestPath(url: string | undefined): string {
  const path = url ?? '/';
  const query = path.indexOf('?');
  const bare = query === -1 ? path : path.slice(0, query);
  return bare.length > 1 && bare.endsWith('/') ? bare.slice(0, -1) : bare;
}
