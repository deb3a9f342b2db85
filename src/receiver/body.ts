import type { IncomingMessage } from 'node:http';
import { ReceiverError } from './errors.js';

export interface BodyLimits {
  maxBodyBytes: number;
  bodyTimeoutMs: number;
}

/**
 * Reads the raw body of a node:http request. A declared length over the limit is refused before
 * a byte is read; a body without one (chunked) stops being read at the limit; a body that
 * trickles in slower than the timeout is cut off; a client that goes away mid-body ends the read.
 * Either way no handler runs on a partial body, and nothing past the limit is kept in memory.
 * When the read is refused the stream is paused: the adapter answers, then discards the rest
 * (node-response.ts).
 */
export function readRawBody(req: IncomingMessage, limits: BodyLimits): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = declaredLength(req.headers['content-length']);
    if (declared !== undefined && declared > limits.maxBodyBytes) {
      reject(tooLarge(limits));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (error: Error | undefined): void => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (error === undefined) {
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
        return;
      }
      req.pause();
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limits.maxBodyBytes) finish(tooLarge(limits));
      else chunks.push(chunk);
    };
    const onEnd = (): void => finish(undefined);
    const onError = (error: Error): void => finish(error);
    // 'close' before 'end': the client went away mid-body, and nobody is left to read an answer.
    const onClose = (): void => finish(new Error('The client closed the connection before the body was complete'));
    const timer = setTimeout(
      () => finish(new ReceiverError('BODY_TIMEOUT', `The body did not arrive within ${limits.bodyTimeoutMs} ms`, { body_timeout_ms: limits.bodyTimeoutMs })),
      limits.bodyTimeoutMs,
    );
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/** A `content-length` as a number; node:http has already refused malformed or conflicting ones. */
function declaredLength(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const length = Number(header);
  return Number.isSafeInteger(length) ? length : undefined;
}

function tooLarge(limits: BodyLimits): ReceiverError {
  return new ReceiverError('PAYLOAD_TOO_LARGE', `The body is larger than ${limits.maxBodyBytes} bytes`, { max_body_bytes: limits.maxBodyBytes });
}
