import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * What node's parser refuses before any request handler runs, as the answers the servers this
 * package starts (the CLI's `listen`, `demo` and `dashboard`, the sandbox, the metrics endpoint)
 * give in the error envelope.
 */
const CLIENT_ERROR_ANSWERS = {
  HPE_HEADER_OVERFLOW: { status: 431, code: 'HEADERS_TOO_LARGE', reason: 'Request Header Fields Too Large', message: 'The request line and headers are larger than the server accepts' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'REQUEST_TIMEOUT', reason: 'Request Timeout', message: 'The request did not arrive in time' },
  OTHER: { status: 400, code: 'BAD_REQUEST', reason: 'Bad Request', message: 'The request is not valid HTTP/1.1' },
} as const;

/**
 * How long, and how many bytes, a refused connection is still read and discarded after its answer
 * went out. Why: closing a socket with unread input makes the kernel send a reset, and the client
 * then loses the answer that was already on its way (Node.js 24's own handler does exactly that
 * with an oversized request line: the client reads ECONNRESET, not 431). Bounded, so a client that
 * keeps sending cannot hold the connection.
 */
export const LINGER_MS = 2_000;
/** @see LINGER_MS */
export const LINGER_MAX_BYTES = 1024 * 1024;

/**
 * Answers what node's HTTP parser refuses (`clientError`) with a status and the error envelope,
 * then closes the connection gracefully: the client reads the answer instead of a reset.
 */
export function answerClientErrors(server: Server): Server {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (socket.writable && error.code !== 'ECONNRESET') {
      const answer = error.code === 'HPE_HEADER_OVERFLOW' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? CLIENT_ERROR_ANSWERS[error.code] : CLIENT_ERROR_ANSWERS.OTHER;
      const body = JSON.stringify({ error: { code: answer.code, message: answer.message, details: {} } });
      socket.end(
        `HTTP/1.1 ${answer.status} ${answer.reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    }
    linger(socket);
  });
  return server;
}

/** Reads and drops what the client still sends, up to {@link LINGER_MAX_BYTES} or {@link LINGER_MS}, then destroys the socket. */
function linger(socket: Duplex): void {
  let read = 0;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS).unref();
  socket.once('close', () => clearTimeout(timer));
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > LINGER_MAX_BYTES) socket.destroy();
  });
  socket.resume();
}
