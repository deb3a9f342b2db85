import { connect } from 'node:net';
import { OUTCOME_TIMEOUT_MS } from './patience.js';

/*
 * HTTP/1.1 by hand over a TCP socket to 127.0.0.1: the request goes out byte for byte as given —
 * dot segments, `//` and bad percent-encoding in the path, any bytes in a header — which fetch()
 * and node:http would normalise or refuse on the client side.
 */

export interface RawRequest {
  method?: string;
  /** The request target exactly as sent (`/a/../b?x=%C3`). */
  target: string;
  /** Header lines; a Buffer value goes out as its bytes (multi-byte UTF-8, bytes that are not UTF-8). */
  headers?: readonly (readonly [string, string | Buffer])[];
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  /** Header names in lower case; every value of a repeated header. */
  headers: Map<string, string[]>;
  body: string;
}

/** How long a request may wait for its answer: a server that stopped answering fails the test. */
const ANSWER_TIMEOUT_MS = OUTCOME_TIMEOUT_MS;

/** The request's bytes: request line, `Host`, `Connection: close`, the headers, then the body. */
export function requestBytes({ method = 'GET', target, headers = [], body }: RawRequest): Buffer {
  const parts: Buffer[] = [Buffer.from(`${method} ${target} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n`, 'latin1')];
  for (const [name, value] of headers) parts.push(Buffer.from(`${name}: `, 'latin1'), typeof value === 'string' ? Buffer.from(value, 'latin1') : value, Buffer.from('\r\n'));
  const payload = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body) : body;
  if (payload !== undefined) parts.push(Buffer.from(`content-length: ${payload.length}\r\n`));
  parts.push(Buffer.from('\r\n'));
  if (payload !== undefined) parts.push(payload);
  return Buffer.concat(parts);
}

/** Sends one request to `origin` (`http://127.0.0.1:<port>`) and reads the answer until the server closes. */
export function rawRequest(origin: string, request: RawRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(origin);
  if (hostname !== '127.0.0.1') throw new Error(`raw requests go to 127.0.0.1 only, not ${hostname}`);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms to ${request.method ?? 'GET'} ${request.target.slice(0, 200)}`));
    }, ANSWER_TIMEOUT_MS);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(parseResponse(Buffer.concat(chunks), request.method === 'HEAD'));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    socket.end(requestBytes(request));
  });
}

function parseResponse(bytes: Buffer, headOnly: boolean): RawResponse {
  const end = bytes.indexOf('\r\n\r\n');
  if (end === -1) throw new Error(`the connection closed without a complete answer (${bytes.length} bytes)`);
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.1 (\d{3})/.exec(statusLine!)?.[1];
  if (status === undefined) throw new Error(`not an HTTP answer: ${statusLine}`);
  const headers = new Map<string, string[]>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  const rest = bytes.subarray(end + 4);
  const body = headOnly ? '' : headers.get('transfer-encoding')?.[0] === 'chunked' ? dechunk(rest) : rest.toString('utf8');
  return { status: Number(status), headers, body };
}

function dechunk(bytes: Buffer): string {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd === -1) break;
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (!(size > 0)) break;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts).toString('utf8');
}
