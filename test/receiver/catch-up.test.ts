import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, memoryStore, sqliteStore, Webhooks, type CatchUpFeed, type ReceiveOutcome, type ReceiverOptions } from '../../src/index.js';
import { createClient, type Client } from '../../src/client/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { createTestEvent, signedRequest } from '../../src/testing/index.js';
import type { WebhookEvent } from '../../src/events/schemas.js';
import { HeldCalls } from '../helpers/gates.js';
import { apiClient, type ApiCall } from '../sandbox/helpers.js';

/*
 * receiver.catchUp and receiver.reconcile against the sandbox's GET /v1/events over HTTP on
 * 127.0.0.1: each feed event through the webhook's pipeline (claim, ordering, inbox, handlers,
 * quarantine) without a signature; the checkpoint in the store; the periodic job on injected
 * timers; the report that claims nothing.
 */

const SECRET = 'whsec_catchUpTestSecret000000000000000';
const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-catch-up-'));
let files = 0;
let sandbox: Sandbox;
let call: ApiCall;
let client: Client;
beforeAll(async () => {
  sandbox = await createSandbox({ seed: 41, plan: 'business' });
  call = apiClient(sandbox);
  client = createClient({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Where the sandbox's events of one test start: each test reads its own events only. */
function mark(): number {
  return sandbox.now() + 1;
}

async function customers(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const answer = await call('POST', '/customers', { name: `Kunde ${i} GmbH` });
    expect(answer.status).toBe(201);
  }
}

/** A receiver whose handlers record each event; closed at the end of its test. */
function receiverWith(options: Partial<ReceiverOptions> = {}, handler?: (event: WebhookEvent) => unknown) {
  const seen: string[] = [];
  const outcomes: ReceiveOutcome[] = [];
  const handlers = new Webhooks().onAny(async (event) => {
    seen.push(event.id);
    await handler?.(event);
  });
  const receiver = createReceiver({ secret: SECRET, handlers, store: memoryStore(), logger: false, onOutcome: (outcome) => outcomes.push(outcome), ...options });
  return { receiver, seen, outcomes };
}

describe('receiver.catchUp', () => {
  it('runs every feed event through the handlers once; an event a webhook handled is a duplicate', async () => {
    const since = mark();
    await customers(4);
    const { receiver, seen, outcomes } = receiverWith();
    const feed = (await client.events.list({ created_after: since, per_page: 100 })).data;
    expect(feed).toHaveLength(4);
    // One of them came by webhook before the outage.
    const { body, headers } = signedRequest(feed[1]!, SECRET);
    expect((await receiver.receive({ rawBody: body, headers, method: 'POST' })).status).toBe(200);

    const summary = await receiver.catchUp({ client, since, pageSize: 3 });
    expect(summary).toMatchObject({ read: 4, handled: 3, queued: 0, duplicates: 1, stale: 0, quarantined: 0, inProgress: 0, failed: 0, heldBy: null, startedFrom: 'since', aborted: false });
    expect(seen.sort()).toEqual(feed.map((event) => event.id).sort());
    // onOutcome: caught_up for what ran now, duplicate for the webhook's; none verified, all via catch_up.
    const caught = outcomes.filter((outcome) => outcome.via === 'catch_up');
    expect(caught.map((outcome) => outcome.outcome).sort()).toEqual(['caught_up', 'caught_up', 'caught_up', 'duplicate']);
    expect(caught.every((outcome) => outcome.verified === false && outcome.status === 200)).toBe(true);
    expect(outcomes.filter((outcome) => outcome.via === undefined).map((outcome) => outcome.outcome)).toEqual(['handled']);
    // The checkpoint: the feed's cursor after the last event.
    expect(summary.checkpoint).toMatchObject({ name: 'default', cursor: expect.stringMatching(/^ec1_/), last_event_id: feed[3]!.id, last_event_created: Date.parse(feed[3]!.created) });
    expect(await receiver.store.catchUp!.checkpoint('default')).toEqual(summary.checkpoint);
    await receiver.close();
  });

  it('resumes from its checkpoint without since: only what arrived since the last run, in a restarted receiver on the same SQLite file', async () => {
    const file = join(dir, `resume-${files++}.db`);
    const since = mark();
    await customers(3);
    const first = receiverWith({ store: sqliteStore(file) });
    expect(await first.receiver.catchUp({ client, since })).toMatchObject({ read: 3, handled: 3 });
    await first.receiver.store.close();

    await customers(2);
    const second = receiverWith({ store: sqliteStore(file) });
    const summary = await second.receiver.catchUp({ client });
    expect(summary).toMatchObject({ read: 2, handled: 2, duplicates: 0, startedFrom: 'checkpoint' });
    expect(second.seen).toHaveLength(2);
    // Nothing new: nothing read, the checkpoint stays on the last event.
    expect(await second.receiver.catchUp({ client })).toMatchObject({ read: 0, handled: 0, checkpoint: { last_event_id: summary.checkpoint!.last_event_id } });
    // since again: the same events are duplicates.
    expect(await second.receiver.catchUp({ client, since })).toMatchObject({ read: 5, handled: 0, duplicates: 5 });
    await second.receiver.store.close();
  });

  it('refuses to start from nothing: NO_CHECKPOINT without since and without a stored checkpoint', async () => {
    const { receiver } = receiverWith();
    await expect(receiver.catchUp({ client })).rejects.toMatchObject({ code: 'NO_CHECKPOINT' });
    await expect(receiver.catchUp({ client, checkpoint: 'other-account' })).rejects.toMatchObject({ code: 'NO_CHECKPOINT' });
    await expect(receiver.catchUp({ client, since: 'yesterday' })).rejects.toMatchObject({ code: 'INVALID_CONFIGURATION', details: { option: 'since' } });
    await expect(receiver.catchUp({ client, since: '1h', after: 1 } as never)).rejects.toMatchObject({ code: 'INVALID_CONFIGURATION', details: { option: 'after' } });
    await expect(receiver.catchUp({ client: {} as never, since: '1h' })).rejects.toMatchObject({ code: 'INVALID_CONFIGURATION', details: { option: 'client' } });
    await receiver.close();
  });

  it('holds the checkpoint at a failing event: the next run handles it, the rest are duplicates', async () => {
    const since = mark();
    await customers(5);
    const feed = (await client.events.list({ created_after: since })).data;
    let failing: string | undefined = feed[2]!.id;
    const { receiver, seen } = receiverWith({}, (event) => {
      if (event.id === failing) throw new Error('the ledger is down');
    });
    const first = await receiver.catchUp({ client, since, pageSize: 2 });
    expect(first).toMatchObject({ read: 5, handled: 4, failed: 1, heldBy: { eventId: feed[2]!.id, type: 'customer.created', outcome: 'failed', code: 'HANDLER_FAILED' } });
    // The checkpoint moved past the first page only (events 0 and 1).
    expect(first.checkpoint).toMatchObject({ last_event_id: feed[1]!.id });
    failing = undefined;
    const second = await receiver.catchUp({ client });
    expect(second).toMatchObject({ read: 3, handled: 1, duplicates: 2, failed: 0, heldBy: null, checkpoint: { last_event_id: feed[4]!.id } });
    expect(seen.filter((id) => id === feed[2]!.id)).toHaveLength(2);
    expect(new Set(seen).size).toBe(5);
    await receiver.close();
  });

  it('runs the validators: an invalid feed event is quarantined, an unknown type acknowledged and kept', async () => {
    const valid = createTestEvent('invoice.paid');
    const invalid = { ...createTestEvent('invoice.paid'), id: 'evt_invalid_amount' } as { data: { object: Record<string, unknown> } } & object;
    invalid.data.object.amount = 'a lot';
    const unknown = { ...createTestEvent('invoice.paid'), id: 'evt_unknown_type', type: 'invoice.disputed' };
    const fake: CatchUpFeed = { events: { list: () => Promise.resolve({ data: [valid, invalid, unknown], pagination: { next_cursor: 'ec1_fake', has_more: false } }) } };
    const { receiver, seen, outcomes } = receiverWith();
    const summary = await receiver.catchUp({ client: fake, since: '1d' });
    expect(summary).toMatchObject({ read: 3, handled: 1, quarantined: 2, failed: 0, checkpoint: { cursor: 'ec1_fake' } });
    expect(seen).toEqual([valid.id]);
    expect((await receiver.store.quarantine.list()).map((entry) => [entry.event_id, entry.reason]).sort()).toEqual([
      ['evt_invalid_amount', 'invalid_payload'],
      ['evt_unknown_type', 'unknown_event_type'],
    ]);
    expect(outcomes.map((outcome) => outcome.outcome)).toEqual(['caught_up', 'quarantined', 'unknown_event_type']);
    await receiver.close();
  });

  it('in inbox mode stores each event in the inbox (queued), and its worker runs them once', async () => {
    const since = mark();
    await customers(3);
    const { receiver, seen } = receiverWith({ store: sqliteStore(join(dir, `inbox-${files++}.db`)), inbox: { pollIntervalMs: 5 }, ordering: true });
    expect(await receiver.catchUp({ client, since })).toMatchObject({ read: 3, handled: 3, queued: 3 });
    expect(await receiver.catchUp({ client, since })).toMatchObject({ read: 3, handled: 0, queued: 0, duplicates: 3 });
    await receiver.inbox.drain();
    expect(seen).toHaveLength(3);
    await receiver.close();
  });

  it('runs an event that a webhook delivery is handling right now once: catch-up sees it in progress and holds its checkpoint there', async () => {
    const since = mark();
    await customers(2);
    const feed = (await client.events.list({ created_after: since })).data;
    const held = new HeldCalls<string>();
    const { receiver, seen } = receiverWith({}, (event) => (event.id === feed[0]!.id ? held.hold(event.id) : undefined));
    const { body, headers } = signedRequest(feed[0]!, SECRET);
    const webhook = receiver.receive({ rawBody: body, headers, method: 'POST' });
    await held.arrived(1);
    // The webhook's handler holds the claim: catch-up does not run it a second time.
    const summary = await receiver.catchUp({ client, since });
    expect(summary).toMatchObject({ read: 2, handled: 1, inProgress: 1, heldBy: { eventId: feed[0]!.id, outcome: 'in_progress' }, checkpoint: null });
    held.releaseAll();
    expect((await webhook).status).toBe(200);
    // Afterwards it is a duplicate; the checkpoint moves on.
    expect(await receiver.catchUp({ client, since })).toMatchObject({ read: 2, handled: 0, duplicates: 2, heldBy: null, checkpoint: { last_event_id: feed[1]!.id } });
    expect(seen.sort()).toEqual(feed.map((event) => event.id).sort());
    await receiver.close();
  });

  it('stops at the signal between two events', async () => {
    const since = mark();
    await customers(3);
    const controller = new AbortController();
    const { receiver, seen } = receiverWith({}, () => controller.abort());
    expect(await receiver.catchUp({ client, since, signal: controller.signal })).toMatchObject({ read: 1, handled: 1, aborted: true, checkpoint: null });
    expect(seen).toHaveLength(1);
    await receiver.close();
  });
});

describe('the periodic catch-up', () => {
  /** Timers the test fires by hand. */
  function manualTimers() {
    const pending = new Map<number, { callback: () => void; ms: number }>();
    let next = 0;
    return {
      pending,
      setTimeout: (callback: () => void, ms: number) => {
        pending.set(++next, { callback, ms });
        return next;
      },
      clearTimeout: (handle: unknown) => void pending.delete(handle as number),
      fire() {
        const [handle, timer] = [...pending.entries()][0]!;
        pending.delete(handle);
        timer.callback();
      },
    };
  }

  it('runs at once, then every interval after a run ends, from the checkpoint; stop() ends it', async () => {
    const since = mark();
    await customers(2);
    const timers = manualTimers();
    const { receiver, seen } = receiverWith();
    const runs: unknown[] = [];
    let ran!: () => void;
    let next = new Promise<void>((resolve) => (ran = resolve));
    const job = receiver.catchUp({ client, since, every: '15m', timers, onRun: (result) => (runs.push(result), ran()) });
    await next;
    expect(runs).toEqual([{ summary: expect.objectContaining({ read: 2, handled: 2, startedFrom: 'since' }) }]);
    await expect.poll(() => timers.pending.size).toBe(1);
    expect([...timers.pending.values()][0]!.ms).toBe(15 * 60_000);

    await customers(1);
    next = new Promise<void>((resolve) => (ran = resolve));
    timers.fire();
    await next;
    expect(runs[1]).toEqual({ summary: expect.objectContaining({ read: 1, handled: 1, startedFrom: 'checkpoint' }) });
    expect(job.last).toMatchObject({ read: 1 });
    expect(seen).toHaveLength(3);
    await expect.poll(() => timers.pending.size).toBe(1);
    await job.stop();
    expect(timers.pending.size).toBe(0);
    expect(job.runs).toBe(2);
    expect(() => receiver.catchUp({ client, every: '10s' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: expect.objectContaining({ option: 'every' }) }));
    await receiver.close();
  });
});

describe('receiver.reconcile', () => {
  it('lists, by type, the events of a range this receiver has not handled, claiming nothing; empty after catch-up', async () => {
    const since = mark();
    await customers(3);
    const customer = (await call('POST', '/customers', { name: 'Rechnung KG' })).body.data as { id: string };
    expect((await call('POST', '/invoices', { customer_id: customer.id, amount: 1200, currency: 'EUR' })).status).toBe(201);
    const feed = (await client.events.list({ created_after: since })).data;
    expect(feed.map((event) => event.type)).toEqual(['customer.created', 'customer.created', 'customer.created', 'customer.created', 'invoice.created']);
    const { receiver, seen } = receiverWith();
    // One came by webhook.
    const { body, headers } = signedRequest(feed[0]!, SECRET);
    await receiver.receive({ rawBody: body, headers, method: 'POST' });

    const report = await receiver.reconcile({ client, since });
    expect(report).toMatchObject({ since: new Date(since).toISOString(), until: null, read: 5, handled: 1, unhandled: 4, byState: { missing: 4, pending: 0, failed: 0, quarantined: 0 } });
    expect(Object.keys(report.byType).sort()).toEqual(['customer.created', 'invoice.created']);
    expect(report.byType['customer.created']!.map((event) => event.id)).toEqual(feed.slice(1, 4).map((event) => event.id));
    expect(report.byType['invoice.created']).toEqual([{ id: feed[4]!.id, type: 'invoice.created', created: feed[4]!.created, state: 'missing' }]);
    // A range, and types.
    expect((await receiver.reconcile({ client, since, until: Date.parse(feed[4]!.created) })).unhandled).toBe(3);
    expect((await receiver.reconcile({ client, since, types: 'invoice.*' })).unhandled).toBe(1);
    // No handler ran, nothing was claimed, no checkpoint was written.
    expect(seen).toHaveLength(1);
    expect(await receiver.store.catchUp!.checkpoint('default')).toBeUndefined();

    await receiver.catchUp({ client, since });
    expect(await receiver.reconcile({ client, since })).toMatchObject({ read: 5, handled: 5, unhandled: 0, byType: {} });
    await receiver.close();
  });
});
