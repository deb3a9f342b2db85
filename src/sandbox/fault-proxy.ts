import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { RESPONSE_BODY_LIMIT_BYTES } from '../dispatcher/dispatcher-defaults.js';
import type { Dispatcher } from '../platform/node-dispatcher.js';
import { HttpSender, type AnswerWatcher, type SendResult } from '../dispatcher/sender.js';
import { UrlGuard, type ResolveHost } from '../dispatcher/url-guard.js';
import type { SandboxClock } from './clock.js';
import type { FaultKind, FaultLog } from './faults.js';
import type { ForwardLog } from './forwards.js';
import type { Reorderer } from './reorder.js';
import { PROXY_TOKEN_HEADER, type WebhookEntry, type WebhookRegistry } from './webhook-registry.js';

/** Headers of the Dispatcher's request that are not passed on to the receiver. */
const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', PROXY_TOKEN_HEADER]);
/** How much longer than the Dispatcher's timeout a withheld answer is held, at most. */
const WITHHOLD_MARGIN_MS = 5_000;

export interface FaultProxyOptions {
  registry: WebhookRegistry;
  dispatcher: Dispatcher;
  faultLog: FaultLog;
  /** Where what the receiver did with each attempt is kept. */
  forwardLog: ForwardLog;
  reorderer: Reorderer;
  clock: SandboxClock;
  /** The Dispatcher's timeout: a forward never takes longer. */
  timeoutMs: number;
  /** The Dispatcher's resolver: the receiver's address is resolved and checked with it at send time. */
  resolveHost: ResolveHost;
}

/**
 * The loopback stop between the Dispatcher and the user's receiver
 * (`/_sandbox/deliver/{dispatcher's webhook id}`): it forwards each attempt unchanged (body,
 * signature, timestamp) to the registered URL and relays the answer, injecting the registration's
 * faults on the way and recording each one.
 *
 * It sends as the Dispatcher sends — with the Dispatcher's own sender, not `fetch`: the receiver's
 * address resolved and checked against the Dispatcher's SSRF rules when it connects (with the
 * sandbox's one allowance, plain http to localhost, 127.0.0.1 and [::1]), one timer of the
 * Dispatcher's timeout for the whole exchange, and at most the Dispatcher's 64 KiB of the answer
 * kept (the rest is not read: the connection is dropped), so a receiver answering without end
 * costs the sandbox no memory.
 */
export class FaultProxy {
  private readonly sender: HttpSender;

  constructor(private readonly options: FaultProxyOptions) {
    const guard = new UrlGuard({ allowInsecureUrls: true, allowedHosts: [], resolveHost: options.resolveHost });
    this.sender = new HttpSender({ timeoutMs: options.timeoutMs, bodyLimitBytes: RESPONSE_BODY_LIMIT_BYTES, guard });
  }

  /** Closes the sender's idle keep-alive connections to receivers. */
  close(): void {
    this.sender.close();
  }

  async handle(request: IncomingMessage, response: ServerResponse, dispatcherId: string, body: Buffer): Promise<void> {
    const webhook = this.options.registry.isProxyToken(request.headers[PROXY_TOKEN_HEADER]) ? this.options.registry.byDispatcherId(dispatcherId) : undefined;
    if (webhook === undefined) {
      response.writeHead(404).end();
      return;
    }
    const eventId = eventIdOf(body);
    const attempt = await this.attemptNumber(webhook, eventId);
    const record = (kind: FaultKind, detail?: Record<string, unknown>) => this.options.faultLog.record(webhook.id, eventId, attempt, kind, this.options.clock.now(), detail);
    const { faults } = webhook;
    if (attempt <= faults.drop_first_attempts) {
      record('dropped', { first_attempts: faults.drop_first_attempts });
      response.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'SANDBOX_FAULT', message: 'Dropped by the sandbox (drop_first_attempts)', details: { attempt_number: attempt } } }));
      return;
    }
    if (faults.delay_ms > 0) {
      record('delayed', { delay_ms: faults.delay_ms });
      await sleep(faults.delay_ms);
    }
    const turn = faults.out_of_order === null ? null : await this.options.reorderer.hold(webhook.id, faults.out_of_order.window, faults.out_of_order.max_wait_ms);
    if (turn !== null) record('reordered', { position: turn.position, arrived: turn.arrived, batch_size: turn.size });
    const headers = forwardHeaders(request);
    const withheld = attempt <= faults.timeout_first_attempts;
    let answer: SendResult;
    try {
      // The answer is relayed as it comes (status line first, then what the sender keeps of the
      // body), so the Dispatcher sees the timing it would see, unless a fault withholds it.
      answer = await this.sender.send({ url: webhook.url, headers, body }, withheld ? undefined : relayTo(response));
      this.options.forwardLog.record(webhook.id, eventId, attempt, answer);
      if (faults.duplicate && answer.response_status !== null) {
        const second = await this.sender.send({ url: webhook.url, headers, body });
        record('duplicated', { response_status: second.response_status });
      }
    } finally {
      turn?.done();
    }
    if (answer.response_status === null) {
      // No answer from the receiver: the Dispatcher sees the connection end, as it would have.
      request.socket.destroy();
      return;
    }
    if (withheld) {
      record('answer_withheld', { receiver_status: answer.response_status, first_attempts: faults.timeout_first_attempts });
      await this.withhold(request);
      return;
    }
    response.end();
  }

  /** This attempt's number in its delivery: the attempts the Dispatcher recorded, plus one. */
  private async attemptNumber(webhook: WebhookEntry, eventId: string): Promise<number> {
    const [delivery] = await this.options.dispatcher.deliveries.list({ webhook_id: webhook.dispatcherId, event_id: eventId, limit: 1 });
    return (delivery?.attempt_count ?? 0) + 1;
  }

  /** Keeps the request open until the Dispatcher gives up on it (its timeout), then drops it. */
  private async withhold(request: IncomingMessage): Promise<void> {
    const closed = new Promise<void>((resolve) => request.socket.once('close', () => resolve()));
    await Promise.race([closed, sleep(this.options.timeoutMs + WITHHOLD_MARGIN_MS, undefined, { ref: false })]);
    request.socket.destroy();
  }
}

/** Writes the receiver's answer to the Dispatcher as it arrives. */
function relayTo(response: ServerResponse): AnswerWatcher {
  return {
    status: (code) => response.writeHead(code),
    data: (chunk) => response.write(chunk),
  };
}

function eventIdOf(body: Buffer): string {
  try {
    const id = (JSON.parse(body.toString('utf8')) as { id?: unknown }).id;
    return typeof id === 'string' ? id : '';
  } catch {
    return '';
  }
}

function forwardHeaders(request: IncomingMessage): Record<string, string> {
  return Object.fromEntries(
    Object.entries(request.headers).flatMap(([name, value]) => (HOP_HEADERS.has(name) || value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]])),
  );
}
