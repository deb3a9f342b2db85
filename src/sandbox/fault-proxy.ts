import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from '../dispatcher/dispatcher.js';
import type { SandboxClock } from './clock.js';
import type { FaultKind, FaultLog } from './faults.js';
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
  reorderer: Reorderer;
  clock: SandboxClock;
  /** The Dispatcher's timeout: a forward never takes longer. */
  timeoutMs: number;
}

interface Forwarded {
  status: number;
  body: Buffer;
  contentType: string | null;
}

/**
 * The loopback stop between the Dispatcher and the user's receiver
 * (`/_sandbox/deliver/{dispatcher's webhook id}`): it forwards each attempt unchanged (body,
 * signature, timestamp) to the registered URL and relays the answer, injecting the registration's
 * faults on the way and recording each one.
 */
export class FaultProxy {
  constructor(private readonly options: FaultProxyOptions) {}

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
    let answer: Forwarded | null;
    try {
      answer = await this.forward(webhook.url, headers, body);
      if (faults.duplicate && answer !== null) {
        const second = await this.forward(webhook.url, headers, body);
        record('duplicated', { response_status: second?.status ?? null });
      }
    } finally {
      turn?.done();
    }
    if (answer === null) {
      // No answer from the receiver: the Dispatcher sees the connection end, as it would have.
      request.socket.destroy();
      return;
    }
    if (attempt <= faults.timeout_first_attempts) {
      record('answer_withheld', { receiver_status: answer.status, first_attempts: faults.timeout_first_attempts });
      await this.withhold(request);
      return;
    }
    response.writeHead(answer.status, answer.contentType === null ? {} : { 'content-type': answer.contentType }).end(answer.body);
  }

  /** This attempt's number in its delivery: the attempts the Dispatcher recorded, plus one. */
  private async attemptNumber(webhook: WebhookEntry, eventId: string): Promise<number> {
    const [delivery] = await this.options.dispatcher.deliveries.list({ webhook_id: webhook.dispatcherId, event_id: eventId, limit: 1 });
    return (delivery?.attempt_count ?? 0) + 1;
  }

  private async forward(url: string, headers: Record<string, string>, body: Buffer): Promise<Forwarded | null> {
    try {
      const answer = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(this.options.timeoutMs) });
      return { status: answer.status, body: Buffer.from(await answer.arrayBuffer()), contentType: answer.headers.get('content-type') };
    } catch {
      return null;
    }
  }

  /** Keeps the request open until the Dispatcher gives up on it (its timeout), then drops it. */
  private async withhold(request: IncomingMessage): Promise<void> {
    const closed = new Promise<void>((resolve) => request.socket.once('close', () => resolve()));
    await Promise.race([closed, sleep(this.options.timeoutMs + WITHHOLD_MARGIN_MS, undefined, { ref: false })]);
    request.socket.destroy();
  }
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
