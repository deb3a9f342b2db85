import { DELIVERY_TIMEOUT_MS } from '../dispatcher/dispatcher-defaults.js';
import { signPayload } from '../signing/signature.js';
import { CliError } from './errors.js';

/** The part of an answer's body that is kept and shown; the rest is cut (like the dispatcher's log). */
export const RESPONSE_BODY_LIMIT_CHARS = 64 * 1024;

export interface SignedRequest {
  url: string;
  /** The exact bytes to send and sign. */
  body: Uint8Array | string;
  secret: string;
  /** Unix seconds for `x-svc-timestamp`. @default now */
  timestamp?: number;
  /** Extra headers (e.g. the replay marker); the signature headers always win. */
  headers?: Record<string, string>;
  userAgent: string;
  /** @default DELIVERY_TIMEOUT_MS, the platform's 30 s */
  timeoutMs?: number;
}

export interface SendResult {
  status: number;
  statusText: string;
  body: string;
  /** Wall time from sending to the end of the answer. */
  ms: number;
}

/**
 * POSTs `body` signed the way the platform signs it (fresh timestamp unless given). Any answer is
 * a result (the caller judges the status); no answer at all — refused, reset, a name that does
 * not resolve, the timeout — is UNREACHABLE.
 */
export async function sendSigned(request: SignedRequest): Promise<SendResult> {
  const signed = signPayload({ payload: request.body, secret: request.secret, ...(request.timestamp === undefined ? {} : { timestamp: request.timestamp }) });
  const started = performance.now();
  try {
    const response = await fetch(request.url, {
      method: 'POST',
      body: request.body,
      headers: { ...request.headers, 'content-type': 'application/json', 'user-agent': request.userAgent, ...signed.headers },
      redirect: 'manual',
      signal: AbortSignal.timeout(request.timeoutMs ?? DELIVERY_TIMEOUT_MS),
    });
    const text = await response.text();
    return {
      status: response.status,
      statusText: response.statusText,
      body: text.length > RESPONSE_BODY_LIMIT_CHARS ? text.slice(0, RESPONSE_BODY_LIMIT_CHARS) : text,
      ms: Math.round(performance.now() - started),
    };
  } catch (error) {
    throw unreachable(request.url, error);
  }
}

/** 200–299: what the platform counts as delivered. */
export function isDelivered(status: number): boolean {
  return status >= 200 && status <= 299;
}

function unreachable(url: string, error: unknown): CliError {
  const reason = describeFailure(error);
  return new CliError('UNREACHABLE', `No answer from ${url}: ${reason}`, { url, reason }, { cause: error });
}

function describeFailure(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer within the timeout';
  const cause = error instanceof Error ? (error.cause as NodeJS.ErrnoException | undefined) : undefined;
  const code = cause?.code;
  if (code !== undefined && Object.hasOwn(FAILURES, code)) return `${FAILURES[code]} (${code})`;
  return cause?.message ?? (error instanceof Error ? error.message : String(error));
}

const FAILURES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused; is the receiver running?',
  ECONNRESET: 'the connection was reset',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  UND_ERR_SOCKET: 'the connection was closed',
};
