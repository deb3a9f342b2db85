import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RunningServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  server: Server;
}

/** Starts a node:http server (or an Express app, which is a request listener) on a free loopback port. */
export async function listen(listener: RequestListener | Server): Promise<RunningServer> {
  const server = typeof listener === 'function' ? createServer(listener) : listener;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server };
}

export async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * Runs `body` against a server on a real loopback port and always closes the server afterwards,
 * also when an assertion inside fails.
 *
 * @example
 * await withServer(app, async (url) => {
 *   const res = await fetch(`${url}/webhooks`, { method: 'POST', body, headers });
 *   expect(res.status).toBe(200);
 * });
 */
export async function withServer<T>(
  listener: RequestListener | Server,
  body: (url: string, server: Server) => Promise<T>,
): Promise<T> {
  const running = await listen(listener);
  try {
    return await body(running.url, running.server);
  } finally {
    await close(running.server);
  }
}

/**
 * A request listener for a dispatcher's deliveries: reads each body whole, takes the event id
 * from its JSON, and hands both to `onDelivery`, which answers.
 */
export function eventDeliveries(onDelivery: (eventId: string, res: ServerResponse) => void): RequestListener {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => onDelivery((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id, res));
  };
}
