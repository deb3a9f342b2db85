import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as a server saw it. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** A loopback HTTP server that records every request and answers with `answer`. */
export interface Recorder {
  url: string;
  requests: RecordedRequest[];
  server: Server;
  close(): Promise<void>;
}

export type Answer = (request: RecordedRequest) => { status: number; body?: unknown };

export async function startRecorder(answer: Answer = () => ({ status: 200, body: { ok: true } })): Promise<Recorder> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      requests.push(request);
      const { status, body } = answer(request);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {}));
    });
  });
  const url = await listenOnLoopback(server);
  return { url: `${url}/webhooks`, requests, server, close: () => closeServer(server) };
}

export async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A port on 127.0.0.1 that nothing listens on: it was free a moment ago and is closed again. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await listenOnLoopback(server);
  const { port } = server.address() as AddressInfo;
  await closeServer(server);
  return port;
}
