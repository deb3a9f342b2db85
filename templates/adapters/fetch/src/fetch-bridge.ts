import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/** A Fetch-API handler: what Hono, Bun.serve and Deno.serve call. */
export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * Serves a Fetch-API handler from node:http: turns the incoming request into a `Request` (the
 * body streams through untouched — the signature covers its exact bytes) and writes the
 * `Response` back. Frameworks ship the same bridge (Hono's `@hono/node-server`); this one keeps
 * the project free of another dependency.
 */
export function toNodeListener(handler: FetchHandler): RequestListener {
  return (req, res) => {
    void serve(handler, req, res);
  };
}

async function serve(handler: FetchHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    await writeResponse(await handler(toRequest(req)), res);
  } catch (error) {
    // fetchHandler answers its own failures with the right status; this is a bug in the bridge
    // or the routing, or the client went away while the answer was written.
    console.error('the fetch handler failed', error);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  }
}

function toRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const single of Array.isArray(value) ? value : [value]) {
      if (single !== undefined) headers.append(name, single);
    }
  }
  const init: RequestInit = { method: req.method ?? 'GET', headers };
  if (init.method !== 'GET' && init.method !== 'HEAD') {
    // The node request is an async iterable of byte chunks; a streamed body needs 'half' duplex.
    init.body = req;
    init.duplex = 'half';
  }
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, init);
}

async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  response.headers.forEach((value, name) => res.setHeader(name, value));
  res.writeHead(response.status);
  res.end(Buffer.from(await response.arrayBuffer()));
}
