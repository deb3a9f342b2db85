import type { IncomingHttpHeaders } from 'node:http';
import { memoryStore } from '../../src/stores/memory/idempotency-store.js';
import { nodeHandler } from '../../src/adapters/node/index.js';
import { Webhooks } from '../../src/receiver/webhooks.js';
import type { WebhookEvent } from '../../src/events/schemas.js';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { close, listen, type RunningServer } from '../helpers/server.js';

/** Parsed JSON, as loose as supertest's bodies. */
export type Json = ReturnType<typeof JSON.parse>;

/** An answer of the sandbox API: status, headers, parsed JSON (null for an empty body). */
export interface ApiAnswer<T = Json> {
  status: number;
  headers: Headers;
  body: T;
}

/** Calls the sandbox API with its test key (or the `authorization` given). */
export function apiClient(sandbox: Pick<Sandbox, 'url' | 'apiKey'>) {
  return async function call<T = Json>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiAnswer<T>> {
    const answer = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await answer.text();
    return { status: answer.status, headers: answer.headers, body: (text === '' ? null : JSON.parse(text)) as T };
  };
}
export type ApiCall = ReturnType<typeof apiClient>;

/** What a receiver built from the package saw: each handled event, with whether the guard called it stale. */
export interface Seen {
  event: WebhookEvent;
  stale: boolean;
}

/**
 * A receiver from the package (nodeHandler, verified, typed, deduplicated in memory) on a loopback
 * port, with the receiver's default freshness check: 300 s around the wall clock, whatever the
 * sandbox clock says. `secret` is set once the webhook is registered.
 */
export class TestReceiver {
  readonly seen: Seen[] = [];
  /** Each object as the receiver's handlers last wrote it: what a receiver's database would hold. */
  readonly state = new Map<string, unknown>();
  /** Every delivery's raw body and headers, duplicates included. */
  readonly raw: { body: string; headers: IncomingHttpHeaders }[] = [];
  secret = '';
  private running: RunningServer | null = null;

  constructor(private readonly options: { ordering?: boolean } = {}) {}

  get url(): string {
    return `${this.running!.url}/webhooks`;
  }

  async start(): Promise<this> {
    const handlers = new Webhooks().onAny((event, context) => {
      this.seen.push({ event, stale: context.stale });
      if (!context.stale) this.state.set(event.data.object.id, event.data.object);
    });
    let handler: ReturnType<typeof nodeHandler> | null = null;
    const receiver = () =>
      (handler ??= nodeHandler({ secret: this.secret, handlers, store: memoryStore(), logger: false, ...(this.options.ordering ? { ordering: true } : {}) }));
    this.running = await listen((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => this.raw.push({ body: Buffer.concat(chunks).toString('utf8'), headers: request.headers }));
      receiver()(request, response);
    });
    return this;
  }

  types(): string[] {
    return this.seen.map((entry) => entry.event.type);
  }

  async close(): Promise<void> {
    if (this.running) await close(this.running.server);
  }
}

/** A seeded sandbox and a receiver registered for every event; both closed by `stop()`. */
export async function sandboxWithReceiver(options: SandboxOptions = {}, receiverOptions: { ordering?: boolean } = {}) {
  const sandbox = await createSandbox({ seed: 7, ...options });
  const receiver = await new TestReceiver(receiverOptions).start();
  const call = apiClient(sandbox);
  const webhook = await call('POST', '/webhooks', { url: receiver.url, events: ['*'] });
  receiver.secret = webhook.body.data.secret;
  return {
    sandbox,
    receiver,
    call,
    webhookId: webhook.body.data.id as string,
    stop: async () => {
      await sandbox.close();
      await receiver.close();
    },
  };
}

/** An injected fault as the deliveries view shows it. */
export interface FaultView {
  kind: string;
  attempt_number: number;
  position?: number;
  [detail: string]: unknown;
}

/** A delivery as `GET /v1/webhooks/{id}/deliveries/{delivery}` shows it. */
export interface DeliveryView {
  id: string;
  status: string;
  faults: FaultView[];
  attempts: {
    attempted_at: string;
    url: string;
    response_status: number | null;
    response_time_ms: number;
    receiver_ip: string | null;
    response_body: string | null;
    error_kind: string | null;
    error_message: string | null;
    faults: FaultView[];
  }[];
}
