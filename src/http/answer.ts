import type { IncomingMessage, ServerResponse } from 'node:http';
import { discardUnread } from './body.js';

/** An answer as the framework-free parts give it to the edge: status, headers, a text body. */
export interface HttpAnswer {
  status: number;
  headers: Readonly<Record<string, string | readonly string[]>>;
  body: string;
}

/**
 * The node side of the bridge: writes an answer to a node:http response (with its length), or
 * only its head for `HEAD`; then drops what is left of a body that was not read to the end
 * ({@link discardUnread}).
 */
export function writeNodeAnswer(req: IncomingMessage, res: ServerResponse, answer: HttpAnswer): void {
  const headOnly = req.method === 'HEAD';
  res.writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body) } as Record<string, string | string[] | number>);
  res.end(headOnly ? undefined : answer.body);
  discardUnread(req);
}

/** The Fetch side of the bridge: the answer as a `Response` (no body for `HEAD`, repeated headers kept). */
export function fetchAnswer(answer: HttpAnswer, method = 'GET'): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (typeof value === 'string') headers.append(name, value);
    else for (const item of value) headers.append(name, item);
  }
  return new Response(method === 'HEAD' ? null : answer.body, { status: answer.status, headers });
}

/** A JSON answer (the receiver's, the sandbox's): the body serialized once. */
export function jsonAnswer(status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): HttpAnswer {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body: JSON.stringify(body) };
}
