import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerClientErrors } from '../../http/client-error.js';
import { CliError } from '../errors.js';

export interface RunningServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/**
 * Starts an HTTP server on `host:port` (0: a free port) answering with `listener` — or with
 * nothing yet, for a caller that needs the port before it can build the app (the demo registers
 * the URL first and gets the secret back). A port in use or a bad address is INVALID_OPTION.
 */
export function listenOn(listener: RequestListener | undefined, port: number, host: string): Promise<RunningServer> {
  const server = answerClientErrors(listener === undefined ? createServer() : createServer(listener));
  return new Promise((resolve, reject) => {
    const refuse = (error: NodeJS.ErrnoException): void => {
      const reason = error.code === 'EADDRINUSE' ? `port ${port} is already in use; pick another with --port` : `cannot listen on ${host}:${port}: ${error.message}`;
      reject(new CliError('INVALID_OPTION', reason, { option: '--port', port, host, errno: error.code }));
    };
    server.once('error', refuse);
    server.listen(port, host, () => {
      server.off('error', refuse);
      resolve({ server, port: (server.address() as AddressInfo).port, close: () => closeServer(server) });
    });
  });
}

/** `http://127.0.0.1:3000/webhooks`, with an IPv6 address in brackets. */
export function serverUrl(host: string, port: number, path: string): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`;
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
