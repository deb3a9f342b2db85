import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { rootCertificates } from 'node:tls';
import type { AttemptErrorKind } from './records.js';
import { RefusedAddressError, type UrlGuard } from './url-guard.js';

/** Extra certificate authorities to trust, PEM: e.g. the self-signed certificate of a test receiver. */
export type TrustedCa = string | Buffer | readonly (string | Buffer)[];

export interface SenderOptions {
  timeoutMs: number;
  bodyLimitBytes: number;
  guard: UrlGuard;
  ca?: TrustedCa | undefined;
}

export interface OutgoingRequest {
  url: string;
  /** Sent as is: a string as UTF-8, bytes unchanged (a relayed request keeps its signed bytes). */
  body: string | Buffer;
  headers: Record<string, string>;
}

/**
 * Sees an answer as it arrives, within the sender's limits: its status line, then each part of
 * the body the sender keeps (at most `bodyLimitBytes` in all). The sandbox's fault proxy relays
 * an answer through it as it comes, so the Dispatcher behind the proxy sees what it would see.
 */
export interface AnswerWatcher {
  status(code: number): void;
  data(chunk: Buffer): void;
}

/** What one attempt produced; `error_kind` is null exactly when the receiver answered 2xx. */
export interface SendResult {
  response_status: number | null;
  response_time_ms: number;
  receiver_ip: string | null;
  response_body: string | null;
  response_body_truncated: boolean;
  error_kind: AttemptErrorKind | null;
  error_message: string | null;
}

class DeliveryTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`No complete answer within ${timeoutMs} ms`);
  }
}

/**
 * Sends one POST with node:http/https directly (not fetch): the socket's remote address is the
 * receiver IP of the log, the connection must resolve through the guarded `lookup`, and redirects
 * must not be followed. Keep-alive agents reuse connections across attempts.
 */
export class HttpSender {
  private readonly httpAgent = new http.Agent({ keepAlive: true, scheduling: 'lifo' });
  private readonly httpsAgent: https.Agent;

  constructor(private readonly options: SenderOptions) {
    this.httpsAgent = new https.Agent({
      keepAlive: true,
      scheduling: 'lifo',
      minVersion: 'TLSv1.2',
      // `ca` replaces Node's trust store, so the public roots are kept next to the extra ones.
      ...(options.ca === undefined ? {} : { ca: [...rootCertificates, ...[options.ca].flat()] }),
    });
  }

  send(request: OutgoingRequest, watcher?: AnswerWatcher): Promise<SendResult> {
    const url = new URL(request.url);
    const refusal = this.options.guard.refusalBeforeConnect(url);
    if (refusal) return Promise.resolve(failure('ssrf', refusal.message));
    return new Promise((resolve) => this.post(url, request, resolve, watcher));
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private post(url: URL, request: OutgoingRequest, resolve: (result: SendResult) => void, watcher: AnswerWatcher | undefined): void {
    const started = performance.now();
    const body = typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : request.body;
    const capture = new BodyCapture(this.options.bodyLimitBytes);
    let status: number | null = null;
    let receiverIp: string | null = null;
    let settled = false;

    const settle = (error: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const elapsed = Math.round(performance.now() - started);
      resolve(status === null ? failure(...classify(error), elapsed, receiverIp) : answered(status, capture, error, elapsed, receiverIp));
    };

    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(url, {
      method: 'POST',
      agent: url.protocol === 'https:' ? this.httpsAgent : this.httpAgent,
      lookup: this.options.guard.lookup,
      headers: { ...request.headers, 'content-length': String(body.length) },
    });
    // One timer for connect, request and answer: the platform counts the whole exchange.
    const timer = setTimeout(() => req.destroy(new DeliveryTimeoutError(this.options.timeoutMs)), this.options.timeoutMs);

    req.on('socket', (socket) => {
      receiverIp = socket.remoteAddress ?? null;
      if (receiverIp === null) socket.once('connect', () => (receiverIp = socket.remoteAddress ?? null));
    });
    req.on('response', (res) => {
      status = res.statusCode ?? null;
      receiverIp = res.socket.remoteAddress ?? receiverIp;
      if (status !== null) watcher?.status(status);
      res.on('data', (chunk: Buffer) => {
        const { kept, full } = capture.add(chunk);
        if (kept.length > 0) watcher?.data(kept);
        if (!full) return;
        // Enough kept: the rest is not read, the connection is dropped.
        res.destroy();
        settle(null);
      });
      res.on('end', () => settle(null));
      res.on('error', settle);
      res.on('close', () => settle(res.complete ? null : new Error('The answer ended early')));
    });
    req.on('error', settle);
    req.end(body);
  }
}

class BodyCapture {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly limit: number) {}

  /** Keeps what fits and says what it kept; `full` once the limit is reached and more was offered. */
  add(chunk: Buffer): { kept: Buffer; full: boolean } {
    const room = this.limit - this.size;
    if (chunk.length > room) {
      const kept = chunk.subarray(0, room);
      this.chunks.push(kept);
      this.size = this.limit;
      this.truncated = true;
      return { kept, full: true };
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    return { kept: chunk, full: false };
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** The receiver answered: its status decides, also when the body then stalled or broke off. */
function answered(status: number, capture: BodyCapture, error: unknown, elapsed: number, receiverIp: string | null): SendResult {
  const kind: AttemptErrorKind | null = status >= 200 && status < 300 ? null : status >= 300 && status < 400 ? 'redirect' : 'http_status';
  const message =
    kind === null ? null : kind === 'redirect' ? `The receiver answered ${status}; redirects are not followed` : `The receiver answered ${status}`;
  return {
    response_status: status,
    response_time_ms: elapsed,
    receiver_ip: receiverIp,
    response_body: capture.text(),
    response_body_truncated: capture.truncated || error !== null,
    error_kind: kind,
    error_message: message,
  };
}

function failure(kind: AttemptErrorKind, message: string, elapsed = 0, receiverIp: string | null = null): SendResult {
  return {
    response_status: null,
    response_time_ms: elapsed,
    receiver_ip: receiverIp,
    response_body: null,
    response_body_truncated: false,
    error_kind: kind,
    error_message: message,
  };
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME']);
const TLS_CODE = /CERT|SSL|TLS|SELF_SIGNED|ALTNAME|ISSUER|SIGNATURE|HANDSHAKE/;

function classify(error: unknown): [AttemptErrorKind, string] {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof DeliveryTimeoutError) return ['timeout', message];
  if (error instanceof RefusedAddressError) return ['ssrf', message];
  const code = (error as NodeJS.ErrnoException | null)?.code ?? '';
  if (DNS_CODES.has(code)) return ['dns', message];
  if (TLS_CODE.test(code) || (error as { library?: unknown } | null)?.library === 'SSL routines') return ['tls', message];
  return ['connection', message || code];
}
