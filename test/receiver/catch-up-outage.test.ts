import { createServer, type RequestListener, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeHandler } from '../../src/adapters/node/index.js';
import { createClient, type Client } from '../../src/client/index.js';
import { EVENT_TYPES } from '../../src/events/catalog.js';
import type { WebhookEvent } from '../../src/events/schemas.js';
import { sqliteStore, Webhooks, type CatchUpSummary, type ReceiveOutcome } from '../../src/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { close, listen, type RunningServer } from '../helpers/server.js';
import { apiClient, type ApiCall, type Json } from '../sandbox/helpers.js';

/*
 * The weekend outage, on the sandbox over HTTP with its clock: a default receiver (a SQLite file,
 * inbox mode, the ordering guard) is stopped; events of all 18 types are emitted over 60 h of
 * sandbox time while every delivery fails; the receiver comes back and catches up from the events
 * feed: each event handled exactly once, every object's final state right, the reconciliation
 * report empty. Then a second outage, and webhook retries and catch-up racing over the same
 * events: each handled once.
 */

const HOUR = 3_600_000;
/** Rounds of the workload: 22 events each, plus the renewals of the subscriptions made before the outage. */
const ROUNDS = 13;
const RENEWING_SUBSCRIPTIONS = 18;

const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-outage-'));
const file = join(dir, 'webhook-events.db');
let sandbox: Sandbox;
let call: ApiCall;
let client: Client;
let webhookId: string;
/** The webhook's secret, known once it is registered. */
let secret = '';

/** What the receiver's handlers did: runs per event id, and each object as last written (what its database would hold). */
const runs = new Map<string, number>();
const state = new Map<string, unknown>();
const outcomes: ReceiveOutcome[] = [];
const handlers = new Webhooks().onAny((event, context) => {
  runs.set(event.id, (runs.get(event.id) ?? 0) + 1);
  if (!context.stale) state.set(event.data.object.id, event.data.object);
});

/** The receiver as it runs in production: nodeHandler on a port, its store a SQLite file, inbox mode, ordering on. */
class ReceiverProcess {
  handler: ReturnType<typeof nodeHandler> | undefined;
  running: RunningServer | undefined;

  async start(port = 0): Promise<string> {
    const handler = nodeHandler({ secret, handlers, store: sqliteStore(file), inbox: { pollIntervalMs: 5 }, ordering: true, logger: false, onOutcome: (outcome) => outcomes.push(outcome) });
    this.handler = handler;
    this.running = await listenOn(port, (request, response) => void handler(request, response));
    return `${this.running.url}/webhooks`;
  }

  get receiver() {
    return this.handler!.receiver;
  }

  async stop(): Promise<void> {
    await close(this.running!.server);
    await this.handler!.receiver.close();
    await this.handler!.receiver.store.close();
  }
}

/** Listens on 127.0.0.1: on `port`, or on a free one (0). */
async function listenOn(port: number, listener: RequestListener): Promise<RunningServer> {
  if (port === 0) return listen(listener);
  const server: Server = createServer(listener);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${port}` };
}

async function ok(method: string, path: string, body?: unknown): Promise<Json> {
  const answer = await call(method, path, body);
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
  return answer.body?.data;
}

/** Every object the workload touched, by the path that reads it now. */
const objects = new Map<string, string>();

/** One round of the workload: 22 events of 17 types (invoice.overdue follows the day after). */
async function round(index: number): Promise<void> {
  const today = new Date(sandbox.now()).toISOString().slice(0, 10);
  const customer = await ok('POST', '/customers', { name: `Kunde ${index} GmbH` });
  await ok('PATCH', `/customers/${customer.id}`, { email: `buchhaltung${index}@kunde.example` });
  objects.set(customer.id, `/customers/${customer.id}`);
  const leaving = await ok('POST', '/customers', { name: `Abgang ${index} OG` });
  await ok('DELETE', `/customers/${leaving.id}`);
  objects.set(leaving.id, `/customers/${leaving.id}`);

  const paid = await ok('POST', '/invoices', { customer_id: customer.id, amount: 11_900 + index, currency: 'EUR' });
  await ok('POST', `/invoices/${paid.id}/send`);
  const payment = await ok('POST', '/transactions', { invoice_id: paid.id, amount: 11_900 + index, currency: 'EUR' });
  await ok('POST', `/transactions/${payment.id}/reverse`);
  objects.set(paid.id, `/invoices/${paid.id}`).set(payment.id, `/transactions/${payment.id}`);
  const overdue = await ok('POST', '/invoices', { customer_id: customer.id, amount: 5_000, currency: 'EUR', due_date: today });
  await ok('POST', `/invoices/${overdue.id}/send`);
  objects.set(overdue.id, `/invoices/${overdue.id}`);
  const cancelled = await ok('POST', '/invoices', { customer_id: customer.id, amount: 2_000, currency: 'EUR' });
  await ok('DELETE', `/invoices/${cancelled.id}`);
  objects.set(cancelled.id, `/invoices/${cancelled.id}`);
  const debit = await ok('POST', '/transactions', { customer_id: customer.id, amount: 4_900, currency: 'EUR', status: 'pending' });
  await ok('POST', `/sandbox/transactions/${debit.id}/fail`, { code: 'insufficient_funds' });
  objects.set(debit.id, `/transactions/${debit.id}`);

  const subscription = await ok('POST', '/sandbox/subscriptions', { customer_id: customer.id, plan: 'pro' });
  await ok('PATCH', `/sandbox/subscriptions/${subscription.id}`, { plan: 'business' });
  await ok('DELETE', `/sandbox/subscriptions/${subscription.id}`);
  objects.set(subscription.id, `/sandbox/subscriptions/${subscription.id}`);

  const period = today.slice(0, 7);
  const confirmed = await ok('POST', '/sandbox/uva', { period });
  await ok('POST', `/sandbox/uva/${confirmed.id}/submit`);
  await ok('POST', `/sandbox/uva/${confirmed.id}/confirm`);
  const rejected = await ok('POST', '/sandbox/uva', { period });
  await ok('POST', `/sandbox/uva/${rejected.id}/submit`);
  await ok('POST', `/sandbox/uva/${rejected.id}/reject`);
  objects.set(confirmed.id, `/sandbox/uva/${confirmed.id}`).set(rejected.id, `/sandbox/uva/${rejected.id}`);
}

async function feedBetween(from: number, to: number): Promise<WebhookEvent[]> {
  const events: WebhookEvent[] = [];
  for await (const event of client.events.iterate({ created_after: from, created_before: to })) events.push(event);
  return events;
}

const receiverProcess = new ReceiverProcess();
let port: number;

beforeAll(async () => {
  sandbox = await createSandbox({ seed: 60, plan: 'business' });
  call = apiClient(sandbox);
  client = createClient({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the weekend outage', () => {
  let fridayStart: number;
  let outageStart: number;
  let outageEnd: number;
  let missed: WebhookEvent[];
  let summary: CatchUpSummary;

  it('Friday: the receiver is up; subscriptions start and are delivered by webhook', async () => {
    const probe = await listen(() => undefined);
    port = Number(new URL(probe.url).port);
    await close(probe.server);
    const webhook = await ok('POST', '/webhooks', { url: `http://127.0.0.1:${port}/webhooks`, events: ['*'] });
    webhookId = webhook.id;
    secret = webhook.secret;
    await receiverProcess.start(port);
    const customer = await ok('POST', '/customers', { name: 'Abo Kunde GmbH' });
    for (let i = 0; i < RENEWING_SUBSCRIPTIONS; i++) await ok('POST', '/sandbox/subscriptions', { customer_id: customer.id, plan: 'pro' });
    await sandbox.settle();
    await receiverProcess.receiver.inbox.drain();
    expect(runs.size).toBe(RENEWING_SUBSCRIPTIONS + 1);
    // Nearly a month passes with the receiver up: the renewals fall due during the weekend.
    await sandbox.advance(30 * 24 * HOUR);
    // Friday afternoon's events arrive by webhook.
    fridayStart = sandbox.now() + 1;
    for (const name of ['Freitag 1 KG', 'Freitag 2 KG', 'Freitag 3 KG']) objects.set((await ok('POST', '/customers', { name })).id, '');
    await sandbox.settle();
    await receiverProcess.receiver.inbox.drain();
    expect(runs.size).toBe(RENEWING_SUBSCRIPTIONS + 4);
    for (const [id, path] of objects) if (path === '') objects.set(id, `/customers/${id}`);
  });

  it('the weekend: the receiver is down for 60 h while events of all 18 types are emitted, every delivery failing', async () => {
    await receiverProcess.stop();
    outageStart = sandbox.now() + 1;
    const step = Math.floor((60 * HOUR) / ROUNDS);
    for (let index = 0; index < ROUNDS; index++) {
      await round(index);
      await sandbox.advance(step);
    }
    await sandbox.advance(outageStart + 60 * HOUR - sandbox.now());
    await sandbox.settle();
    outageEnd = sandbox.now() + 1;
    missed = await feedBetween(outageStart, outageEnd);
    expect(new Set(missed.map((event) => event.type))).toEqual(new Set(EVENT_TYPES));
    expect(missed.length).toBeGreaterThanOrEqual(300);
    expect(missed.every((event) => !runs.has(event.id))).toBe(true);
    // Not one delivery of the weekend arrived; the early ones have used up all seven attempts.
    const deliveries = (await call('GET', `/webhooks/${webhookId}/deliveries?per_page=100`)).body.data as { status: string }[];
    expect(deliveries.some((delivery) => delivery.status === 'delivered')).toBe(false);
    // About 260 API calls and 60 h of retries to a closed port: 14 to 30 s on a busy 2-core machine.
  }, 120_000);

  it('Monday: the receiver comes back and catches up: each event handled exactly once, every object right, the report empty', async () => {
    const url = await receiverProcess.start();
    expect(url).not.toBe(`http://127.0.0.1:${port}/webhooks`);
    const { receiver } = receiverProcess;
    // The report first: everything of the weekend is missing.
    const before = await receiver.reconcile({ client, since: outageStart, until: outageEnd });
    expect(before).toMatchObject({ read: missed.length, handled: 0, unhandled: missed.length, byState: { missing: missed.length } });
    expect(Object.keys(before.byType).sort()).toEqual([...EVENT_TYPES].sort());

    // From Friday afternoon: the events a webhook delivered then are duplicates.
    const started = performance.now();
    summary = await receiver.catchUp({ client, since: fridayStart });
    const seconds = (performance.now() - started) / 1000;
    await receiver.inbox.drain();
    expect(summary).toMatchObject({ read: missed.length + 3, handled: missed.length, queued: missed.length, duplicates: 3, failed: 0, quarantined: 0, heldBy: null });
    console.info(`catch-up of ${summary.read} events: ${seconds.toFixed(2)} s (${Math.round(summary.read / seconds)} events/s), inbox drained`);

    for (const event of missed) expect(runs.get(event.id), event.id).toBe(1);
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
    const caughtUp = outcomes.filter((outcome) => outcome.via === 'catch_up');
    expect(caughtUp.filter((outcome) => outcome.outcome === 'caught_up')).toHaveLength(missed.length);

    // Every object as the platform has it now is what the handlers wrote last.
    for (const [id, path] of objects) expect(state.get(id), path).toEqual(await ok('GET', path));

    expect(await receiver.reconcile({ client, since: outageStart, until: outageEnd })).toMatchObject({ read: missed.length, handled: missed.length, unhandled: 0, byType: {} });
  });

  it('a second outage, then webhook retries and catch-up racing over the same events: each handled once', async () => {
    await receiverProcess.stop();
    const from = sandbox.now() + 1;
    const customer = await ok('POST', '/customers', { name: 'Wettlauf GmbH' });
    for (let i = 0; i < 10; i++) {
      const invoice = await ok('POST', '/invoices', { customer_id: customer.id, amount: 1_000 + i, currency: 'EUR' });
      await ok('POST', `/invoices/${invoice.id}/send`);
      await ok('POST', '/transactions', { invoice_id: invoice.id, amount: 1_000 + i, currency: 'EUR' });
    }
    await sandbox.settle();
    const racing = await feedBetween(from, sandbox.now() + 1);
    expect(racing.length).toBe(41);
    // Back on the webhook's own address; the webhook enabled again if the weekend disabled it.
    const webhook = (await call('GET', `/webhooks/${webhookId}`)).body.data as { status: string };
    if (webhook.status !== 'active') await ok('PATCH', `/webhooks/${webhookId}`, { status: 'active' });
    await receiverProcess.start(port);
    const { receiver } = receiverProcess;
    const webhookBefore = outcomes.filter((outcome) => outcome.via === undefined && outcome.status === 200).length;
    // The retries fall due (the first after a minute, the next after five) while catch-up reads the same events.
    const [race] = await Promise.all([receiver.catchUp({ client }), sandbox.advance(6 * 60_000)]);
    await sandbox.settle();
    await receiver.inbox.drain();
    const byWebhook = outcomes.filter((outcome) => outcome.via === undefined && outcome.status === 200).length - webhookBefore;
    console.info(`race: catch-up read ${race.read}, queued ${race.queued}, duplicates ${race.duplicates}; ${byWebhook} webhook deliveries answered 200`);
    expect(race.read).toBe(racing.length);
    expect(byWebhook).toBeGreaterThan(0);
    for (const event of racing) expect(runs.get(event.id), event.id).toBe(1);
    expect(await receiver.reconcile({ client, since: from })).toMatchObject({ unhandled: 0 });
    await receiverProcess.stop();
  });
});
