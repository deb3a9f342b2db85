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
export async function readRawBody(req: IncomingMessage, limits: BodyLimits): Promise<Buffer> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      req.pause();
      reject(new ReceiverError('BODY_TIMEOUT', `The body did not arrive within ${limits.bodyTimeoutMs} ms`, { bodyTimeoutMs: limits.bodyTimeoutMs }));
    }, limits.bodyTimeoutMs);
  });
  try {
    const length = req.headers['content-length'];
    return await Promise.race([getRawBody(req, { limit: limits.maxBodyBytes, ...(length ? { length } : {}) }), timeout]);
  } catch (error) {
    throw asBodyError(error, limits);
  } finally {
    clearTimeout(timer);
  }
}

function asBodyError(error: unknown, limits: BodyLimits): unknown {
  if (error instanceof ReceiverError) return error;
  const type = (error as { type?: string }).type;
  if (type === 'entity.too.large') {
    return new ReceiverError('PAYLOAD_TOO_LARGE', `The body is larger than ${limits.maxBodyBytes} bytes`, { maxBodyBytes: limits.maxBodyBytes });
  }
  return error;
}
