import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import { ReceiverError } from './errors.js';

export interface BodyLimits {
  maxBodyBytes: number;
  bodyTimeoutMs: number;
}

/**
 * Reads the raw body of a node:http request. A declared length over the limit is refused before
 * reading; a chunked body stops being read at the limit; a body that trickles in slower than the
 * timeout is cut off. Either way no handler runs on a partial body.
 */
export function readRawBody(req: IncomingMessage, limits: BodyLimits): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      req.pause();
      reject(new ReceiverError('BODY_TIMEOUT', `The body did not arrive within ${limits.bodyTimeoutMs} ms`, { body_timeout_ms: limits.bodyTimeoutMs }));
    }, limits.bodyTimeoutMs);
    const length = req.headers['content-length'];
    getRawBody(req, { limit: limits.maxBodyBytes, ...(length ? { length } : {}) }, (error, body) => {
      clearTimeout(timer);
      if (error) reject(asBodyError(error, limits));
      else resolve(body);
    });
  });
}

function asBodyError(error: unknown, limits: BodyLimits): Error {
  if (error instanceof ReceiverError) return error;
  const type = (error as { type?: string }).type;
  if (type === 'entity.too.large') {
    return new ReceiverError('PAYLOAD_TOO_LARGE', `The body is larger than ${limits.maxBodyBytes} bytes`, { max_body_bytes: limits.maxBodyBytes });
  }
  return error instanceof Error ? error : new Error(String(error));
}
