import type { Server } from 'node:http';

/** Anything that holds resources until it is closed: the receiver and its store. */
interface Closable {
  close(): Promise<void>;
}

/**
 * Stops accepting connections, waits for the requests in flight — a delivery whose handlers
 * are still running gets its answer — then closes the receiver, which closes its store.
 */
export async function closeGracefully(server: Server, receiver: Closable): Promise<void> {
  if (server.listening) {
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  }
  await receiver.close();
}
