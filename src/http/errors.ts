import { AcctWebhookError, type ErrorDetails } from '../kernel/errors.js';

/** Every code an {@link HttpBodyError} carries, with the status the HTTP edge answers it with. */
export const HTTP_BODY_ERROR_STATUS = {
  /** The body is larger than the limit (declared in `content-length`, or counted while it streamed). */
  PAYLOAD_TOO_LARGE: 413,
  /** The body did not arrive completely within the body timeout. */
  BODY_TIMEOUT: 408,
  /** The client went away (or the stream failed) before the body was complete. */
  BODY_ABORTED: 400,
  /** Something before the adapter (a framework's body parser) consumed the body: the raw bytes are gone. */
  BODY_ALREADY_PARSED: 500,
} as const;

/** The codes of an {@link HttpBodyError}. */
export type HttpBodyErrorCode = keyof typeof HTTP_BODY_ERROR_STATUS;

/**
 * A request body that could not be read whole: too large, too slow, cut off, or consumed by
 * someone else first. Every adapter of the receiver, the dashboard and the sandbox reads bodies
 * through the HTTP edge (src/http/body.ts) and gets this one error; `status` is its HTTP status.
 */
export class HttpBodyError extends AcctWebhookError<HttpBodyErrorCode> {
  constructor(code: HttpBodyErrorCode, message: string, details: ErrorDetails = {}, options?: ErrorOptions) {
    super(code, message, details, options);
  }

  get status(): number {
    return HTTP_BODY_ERROR_STATUS[this.code];
  }
}

/** The body is larger than `maxBytes`. */
export function bodyTooLarge(maxBytes: number): HttpBodyError {
  return new HttpBodyError('PAYLOAD_TOO_LARGE', `The body is larger than ${maxBytes} bytes`, { max_body_bytes: maxBytes });
}

/** The body did not arrive within `timeoutMs`. */
export function bodyTimedOut(timeoutMs: number): HttpBodyError {
  return new HttpBodyError('BODY_TIMEOUT', `The body did not arrive within ${timeoutMs} ms`, { body_timeout_ms: timeoutMs });
}

/** The client closed the connection (or the stream failed) before the body was complete. */
export function bodyAborted(cause?: unknown): HttpBodyError {
  return new HttpBodyError('BODY_ABORTED', 'The client closed the connection before the body was complete', {}, cause === undefined ? undefined : { cause });
}

/**
 * A framework's body parser consumed the request first. `fix` says, for that framework, how to
 * mount the adapter so that it gets the raw bytes; it goes into the message (and so the log line).
 */
export function bodyAlreadyParsed(fix: string, details: ErrorDetails = {}): HttpBodyError {
  return new HttpBodyError('BODY_ALREADY_PARSED', `A body parser consumed the request before the webhook handler, so the raw bytes the signature covers are gone. ${fix}`, details);
}
