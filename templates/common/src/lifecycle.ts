import type { Server } from 'node:http';

/** Anything that holds resources until it is closed: the receiver, the store. */
interface Closable {
  close(): Promise<void>;
}

/**
 * Stops accepting connections, waits for the requests in flight — a delivery whose handlers
 * are still running gets its answer — then closes the receiver and the store, in that order.
 * (The receiver closes only what it opened itself; the store was opened here, so it is closed here.)
 */
export async function closeGracefully(server: Server, ...resources: Closable[]): Promise<void> {
  if (server.listening) {
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  }
  for (const resource of resources) await resource.close();
}
