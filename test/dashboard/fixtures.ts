import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import type { DispatcherOptions } from '../../src/dispatcher.js';
import { dashboardNodeHandler } from '../../src/dashboard/index.js';
import type { DashboardOptions } from '../../src/dashboard/options.js';
import { createReceiver, sqliteStore, Webhooks, type Receiver as WebhookReceiver } from '../../src/index.js';
import { createTestEvent, signedRequest } from '../../src/testing/index.js';
import { Receiver, tempDir, testDispatcher } from '../dispatcher/fixtures.js';
import { close, listen } from '../helpers/server.js';

export const BASE = '/admin/webhooks';
export const RECEIVER_SECRET = 'whsec_dashboardTestSecret0000000000';

/** A page as fetched: status, headers, text. */
export interface Fetched {
  status: number;
  headers: Headers;
  text: string;
}

/** A client that keeps the dashboard's cookies, as a browser would (no JavaScript). */
export class Client {
  private readonly cookies = new Map<string, string>();

  constructor(readonly origin: string) {}

  get csrfToken(): string {
    return this.cookies.get('acct_dashboard_csrf') ?? '';
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<Fetched> {
    return this.send(path, { method: 'GET', headers });
  }

  /** Posts a form with the CSRF token of the cookie (unless `_csrf` is given). */
  async post(path: string, fields: Record<string, string | string[]> = {}, headers: Record<string, string> = {}): Promise<Fetched> {
    const form = new URLSearchParams();
    if (!('_csrf' in fields)) form.set('_csrf', this.csrfToken);
    for (const [name, value] of Object.entries(fields)) for (const item of Array.isArray(value) ? value : [value]) form.append(name, item);
    return this.send(path, { method: 'POST', body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });
  }

  private async send(path: string, init: { method: string; body?: string; headers: Record<string, string> }): Promise<Fetched> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(`${this.origin}${path}`, { ...init, redirect: 'manual', headers: { accept: 'text/html', ...(cookie ? { cookie } : {}), ...init.headers } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=');
      this.cookies.set(name!, value!);
    }
    const location = response.headers.get('location');
    if (response.status === 303 && location) return this.get(location);
    return { status: response.status, headers: response.headers, text: await response.text() };
  }
}

export interface Setup {
  dispatcher: ReturnType<typeof testDispatcher>;
  /** The receiving app's receiver (SQLite store, handlers that succeed). */
  receiver: WebhookReceiver;
  /** The receiver's SQLite file. */
  eventsDb: string;
  /** Where the dispatcher delivers: records requests, answers per `answer`. */
  target: Receiver;
  targetUrl: string;
  /** The dashboard's origin (`http://127.0.0.1:<port>`); pages are below {@link BASE}. */
  origin: string;
  client: Client;
  /** Sends a signed event to the receiver, as the platform would. */
  receive(event: object): Promise<number>;
  /** While true, the receiver's handlers throw. */
  handlers: { failing: boolean };
}

/**
 * A dispatcher on a SQLite file, a receiving app with a SQLite store, a target server on
 * loopback, and the dashboard for both on another loopback port; all closed when the test ends.
 */
export async function setup(
  options: {
    answer?: ConstructorParameters<typeof Receiver>[0];
    dispatcher?: DispatcherOptions;
    authorize?: DashboardOptions['authorize'];
    /** The receiver in inbox mode, one run per event (a failure makes it dead at once). */
    inbox?: boolean;
    /** The dashboard's clock (give the dispatcher's too, in `dispatcher`). */
    clock?: () => number;
  } = {},
): Promise<Setup> {
  const dispatcher = testDispatcher(options.dispatcher);
  const target = new Receiver(options.answer);
  const targetServer = await listen(target.listener);
  onTestFinished(() => close(targetServer.server));
  const control = { failing: false };
  const handlers = new Webhooks().onAny(() => {
    if (control.failing) throw new Error('the handler is down');
    return 'handled';
  });
  const eventsDb = join(tempDir(), 'events.db');
  const receiver = createReceiver({
    secret: RECEIVER_SECRET,
    handlers,
    store: sqliteStore(eventsDb),
    logger: false,
    ...(options.inbox ? { inbox: { retryDelaysMs: [], pollIntervalMs: 20 } } : {}),
  });
  onTestFinished(() => receiver.close());
  const board = dashboardNodeHandler({ dispatcher, receiver, authorize: options.authorize ?? (() => true), basePath: BASE, ...(options.clock ? { clock: options.clock } : {}) });
  const boardServer = await listen(board);
  onTestFinished(() => close(boardServer.server));
  return {
    dispatcher,
    receiver,
    eventsDb,
    target,
    targetUrl: `${targetServer.url}/hooks`,
    origin: boardServer.url,
    client: new Client(boardServer.url),
    handlers: control,
    async receive(event) {
      const { body, headers } = signedRequest(event, RECEIVER_SECRET);
      return (await receiver.receive({ rawBody: body, headers, method: 'POST' })).status;
    },
  };
}

/** A registration to the target and one event emitted to it, delivered once. */
export async function oneDelivery(s: Setup, object: Record<string, unknown> = {}) {
  const webhook = await s.dispatcher.webhooks.create({ url: s.targetUrl, events: ['invoice.*'] });
  const event = createTestEvent('invoice.paid', { data: { object } });
  await s.dispatcher.emit(event);
  await s.dispatcher.runDue();
  const [delivery] = await s.dispatcher.deliveries.list({ event_id: event.id });
  return { webhook, event, delivery: delivery! };
}
