import type { IncomingMessage } from 'node:http';
import { bodyAborted, bodyAlreadyParsed, bodyTimedOut, bodyTooLarge, HttpBodyError } from './errors.js';

/** How much of a body the edge reads, and for how long. */
export interface BodyLimits {
  /** Larger bodies are refused: from `content-length` before a byte is read, else while streaming. */
  maxBytes: number;
  /** The whole body must have arrived within this many milliseconds of the start of the read. */
  timeoutMs: number;
}

/**
 * Reads the raw body of a node:http request (Express, Koa, Fastify's `request.raw`, NestJS: all
 * hand one over). A declared length over the limit is refused before a byte is read; a body
 * without one (chunked) stops being read at the limit; a body that trickles in slower than the
 * timeout is cut off; a client that goes away mid-body ends the read. Either way no handler runs
 * on a partial body, and nothing past the limit is kept in memory. When the read is refused the
 * stream is paused: the adapter answers, then {@link discardUnread} drops the rest.
 *
 * @throws HttpBodyError PAYLOAD_TOO_LARGE, BODY_TIMEOUT, BODY_ABORTED
 */
export function readNodeBody(req: IncomingMessage, limits: BodyLimits): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = declaredLength(req.headers['content-length']);
    if (declared !== undefined && declared > limits.maxBytes) {
      reject(bodyTooLarge(limits.maxBytes));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (error: HttpBodyError | undefined): void => {
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
      if (received > limits.maxBytes) finish(bodyTooLarge(limits.maxBytes));
      else chunks.push(chunk);
    };
    const onEnd = (): void => finish(undefined);
    const onError = (error: Error): void => finish(bodyAborted(error));
    // 'close' before 'end': the client went away mid-body, and nobody is left to read an answer.
    const onClose = (): void => finish(bodyAborted());
    const timer = setTimeout(() => finish(bodyTimedOut(limits.timeoutMs)), limits.timeoutMs);
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/** What a framework that ran before the adapter may have left on a node:http request. */
export interface ParsedNodeRequest extends IncomingMessage {
  /** The parsed body (Express's `express.json()`, Next.js's Pages Router API routes), or the raw text or bytes. */
  body?: unknown;
  /** Set by some frameworks and `express.json({ verify })` recipes: the unparsed body. */
  rawBody?: unknown;
}

/**
 * The raw body of a node:http request that a framework may have handled first (Express,
 * Next.js's Pages Router, NestJS): a raw copy it kept (`req.rawBody`, or a `req.body` that is
 * still a Buffer or the text), else the stream read under `limits`. When the stream was consumed
 * and only a parsed object is left, the signed bytes are gone: the read fails with
 * `BODY_ALREADY_PARSED`, whose message carries `fix` (what to change, in that framework's terms),
 * rather than waiting for a body that will never come (a 408) or verifying a re-serialised one (a 401).
 *
 * @throws HttpBodyError BODY_ALREADY_PARSED, and those of {@link readNodeBody}
 */
export function readConsumableNodeBody(req: ParsedNodeRequest, limits: BodyLimits, fix: string): Buffer | string | Promise<Buffer> {
  const raw = req.rawBody ?? req.body;
  if (Buffer.isBuffer(raw) || typeof raw === 'string') return raw;
  if (bodyConsumed(req)) return Promise.reject(bodyAlreadyParsed(fix, { parsed_body_type: typeof req.body }));
  return readNodeBody(req, limits);
}

/** A body parser ran: body-parser's `_body` flag, a stream read to its end, or a parsed body left behind. */
function bodyConsumed(req: ParsedNodeRequest): boolean {
  return (req as { _body?: unknown })._body === true || req.readableEnded || (req.body !== undefined && req.body !== null);
}

/** What a refused Fetch `Request` tells the user to change, where no framework says it better. */
export const WEB_BODY_FIX =
  'Pass the Request to the handler untouched: nothing may call request.json(), request.text() or request.body.getReader() on it first. Code that needs the body too reads a copy (request.clone()) before the handler runs.';

/**
 * Reads the body of a Fetch `Request` (Hono, Next.js route handlers, Bun, Deno, workerd) under
 * the same limits: `content-length` checked first, the stream read chunk by chunk and cancelled
 * as soon as it passes the limit or the timeout.
 *
 * A body something read before (`request.json()`, `request.text()`) or holds a reader on is
 * refused with `BODY_ALREADY_PARSED`, whose message carries `fix`: the bytes are gone, or are
 * someone else's to read.
 *
 * @throws HttpBodyError BODY_ALREADY_PARSED, PAYLOAD_TOO_LARGE, BODY_TIMEOUT, BODY_ABORTED
 */
export async function readWebBody(request: Request, limits: BodyLimits, fix: string = WEB_BODY_FIX): Promise<Uint8Array> {
  if (request.bodyUsed || request.body?.locked === true) throw bodyAlreadyParsed(fix, { body_used: request.bodyUsed, body_locked: request.body?.locked === true });
  const declared = declaredLength(request.headers.get('content-length') ?? undefined);
  if (declared !== undefined && declared > limits.maxBytes) throw bodyTooLarge(limits.maxBytes);
  if (request.body === null) return new Uint8Array(0);
  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(bodyTimedOut(limits.timeoutMs)), limits.timeoutMs);
  });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), timedOut]).catch((error: unknown) => {
        throw error instanceof HttpBodyError ? error : bodyAborted(error);
      });
      if (done) break;
      size += value.byteLength;
      if (size > limits.maxBytes) throw bodyTooLarge(limits.maxBytes);
      chunks.push(value);
    }
  } catch (error) {
    // The refusal is the answer; a failed cancel changes nothing.
    reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return chunks.length === 1 ? chunks[0]! : concat(chunks, size);
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const whole = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return whole;
}

/** How long a refused body may keep streaming in (discarded) before the connection is cut. */
export const UNREAD_BODY_GRACE_MS = 2_000;

/**
 * After an answer to a request whose body was not read to the end (refused as too large or too
 * slow): what still arrives is discarded, never buffered, for a short grace period, so that the
 * client reads the answer instead of a connection reset; a client still sending after that is
 * cut off. (Closing at once would reset the connection under a client that is still writing,
 * and it would never see the 413.)
 */
export function discardUnread(req: IncomingMessage): void {
  if (req.complete) return;
  req.resume();
  const cut = setTimeout(() => req.socket.destroy(), UNREAD_BODY_GRACE_MS).unref();
  const stop = (): void => clearTimeout(cut);
  req.once('end', stop);
  req.socket.once('close', stop);
}

/** A `content-length` as a number; a malformed one counts as none (the stream is counted instead). */
function declaredLength(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const length = Number(header);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}
