import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/**
 * Serves a Fetch-API handler `(Request) => Promise<Response>` from node:http, the way Next.js,
 * Hono's node adapter and others do, so the same HTTP tests run against every adapter.
 */
export function fetchListener(handler: (request: Request) => Promise<Response>): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const request = new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers: Object.entries(req.headers).flatMap(([name, value]) =>
          value === undefined ? [] : (Array.isArray(value) ? value : [value]).map((v): [string, string] => [name, v]),
        ),
        ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
      });
      const response = await handler(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    })();
  };
}
