import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigurationError, createReceiver, memoryStore, sqliteStore, Webhooks, type Receiver, type ReceiverOptions } from '../../src/index.js';
import { createTestEvent, signedRequest } from '../../src/testing/index.js';
import { FakeClock } from '../helpers/clock.js';
import { HeldCalls } from '../helpers/gates.js';

const SECRET = 'whsec_inboxModeSecret0000000000000000';

/** A gate a handler waits at until the test opens it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('inbox mode: acknowledge once durable, run the handlers in the background', () => {
  let clock: FakeClock;
  let receivers: Receiver[];
  beforeEach(() => {
    clock = new FakeClock();
    receivers = [];
  });
  afterEach(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });

  function inboxReceiver(hooks: Webhooks, options: Partial<ReceiverOptions> = {}): Receiver {
    const receiver = createReceiver({
      secret: SECRET,
      handlers: hooks,
      store: memoryStore(),
      logger: false,
      clock: clock.now,
      inbox: { pollIntervalMs: 5 },
      ...options,
    });
    receivers.push(receiver);
    return receiver;
  }
  const deliver = (receiver: Receiver, event: object) => {
    const { body, headers } = signedRequest(event, SECRET, { timestamp: Math.floor(clock.now() / 1000) });
    return receiver.receive({ rawBody: body, headers, method: 'POST' });
  };

  it('answers 200 queued: true before the handlers run; a redelivery while queued, running or done is a duplicate', async () => {
    const release = gate();
    const started = vi.fn();
    const hooks = new Webhooks().on('invoice.paid', async () => {
      started();
      await release.opened;
    });
    const receiver = inboxReceiver(hooks);
    const event = createTestEvent('invoice.paid');

    const first = await deliver(receiver, event);
    expect(first).toMatchObject({ status: 200, body: { received: true, id: event.id, duplicate: false, queued: true } });
    await vi.waitFor(() => expect(started).toHaveBeenCalledTimes(1));
    expect((await receiver.inbox.get(event.id))?.status).toBe('processing');
    expect(await deliver(receiver, event)).toMatchObject({ status: 200, body: { duplicate: true } });

    release.open();
    await receiver.inbox.drain();
    expect(await receiver.inbox.get(event.id)).toMatchObject({ status: 'done', attempts: 1 });
    expect(await deliver(receiver, event)).toMatchObject({ status: 200, body: { duplicate: true } });
    expect(started).toHaveBeenCalledTimes(1);
  });

  it('finishes a handler that takes longer than 30 s (injected time) while every delivery of it is answered 200 at once', async () => {
    const release = gate();
    let finished = false;
    const hooks = new Webhooks().on('invoice.paid', async () => {
      await release.opened;
      finished = true;
    });
    const receiver = inboxReceiver(hooks);
    const event = createTestEvent('invoice.paid');
    const answers = [await deliver(receiver, event)];
    // The sender would give up after 30 s and retry on its schedule: 1 min later, then 5 min
    // later; the handler is still running (its lease, 5 min 30 s by default, holds).
    for (const wait of [31_000, 60_000, 200_000]) {
      clock.advance(wait);
      answers.push(await deliver(receiver, event));
    }
    // Every answer was given while the handler was still running.
    expect(finished).toBe(false);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(answers.slice(1).every((answer) => (answer.body as { duplicate: boolean }).duplicate)).toBe(true);
    release.open();
    await receiver.inbox.drain();
    expect(finished).toBe(true);
    expect(await receiver.inbox.get(event.id)).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('retries a failing handler with backoff: failing twice then succeeding runs three times and completes', async () => {
    const attempts: number[] = [];
    const hooks = new Webhooks().on('invoice.paid', (_event, context) => {
      attempts.push(context.attempt);
      if (attempts.length < 3) throw new Error('the bank API is down');
    });
    const receiver = inboxReceiver(hooks, { inbox: { pollIntervalMs: 5, retryDelaysMs: [1_000, 10_000, 60_000] } });
    const event = createTestEvent('invoice.paid');
    await deliver(receiver, event);

    await vi.waitFor(async () => expect(await receiver.inbox.get(event.id)).toMatchObject({ status: 'pending', attempts: 1 }));
    expect(await receiver.inbox.get(event.id)).toMatchObject({
      next_attempt_at: new Date(clock.now() + 1_000).toISOString(),
      last_error: { code: 'HANDLER_FAILED', message: 'Error: the bank API is down' },
    });
    clock.advance(1_000);
    await vi.waitFor(async () => expect(await receiver.inbox.get(event.id)).toMatchObject({ status: 'pending', attempts: 2 }));
    expect((await receiver.inbox.get(event.id))?.next_attempt_at).toBe(new Date(clock.now() + 10_000).toISOString());
    clock.advance(10_000);
    await receiver.inbox.drain();
    expect(attempts).toEqual([1, 2, 3]);
    expect(await receiver.inbox.get(event.id)).toMatchObject({ status: 'done', attempts: 3, last_error: null });
  });

  it('keeps an event whose every run failed as dead (visible, never dropped), and runs it again on retry', async () => {
    let healthy = false;
    const runs = vi.fn();
    const hooks = new Webhooks().on('payment.received', () => {
      runs();
      if (!healthy) throw new Error('still down');
    });
    const receiver = inboxReceiver(hooks, { inbox: { pollIntervalMs: 5, retryDelaysMs: [0] } });
    const event = createTestEvent('payment.received');
    await deliver(receiver, event);
    await receiver.inbox.drain();
    expect(runs).toHaveBeenCalledTimes(2);
    expect(await receiver.inbox.get(event.id)).toMatchObject({ status: 'dead', attempts: 2, last_error: { code: 'HANDLER_FAILED', message: 'Error: still down' } });
    expect(await receiver.inbox.stats()).toMatchObject({ dead: 1, pending: 0 });
    expect(await receiver.inbox.list({ status: 'dead' })).toMatchObject([{ event_id: event.id }]);

    healthy = true;
    expect(await receiver.inbox.retry(event.id)).toMatchObject({ status: 'pending', attempts: 0 });
    await receiver.inbox.drain();
    expect(runs).toHaveBeenCalledTimes(3);
    expect(await receiver.inbox.get(event.id)).toMatchObject({ status: 'done', attempts: 1 });
    await expect(receiver.inbox.retry(event.id)).rejects.toMatchObject({ code: 'NOT_RETRYABLE' });
    await expect(receiver.inbox.retry('evt_unknown')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('counts a run past its budget as failed and aborts its signal', async () => {
    let signal: AbortSignal | undefined;
    const hooks = new Webhooks().on('invoice.sent', (_event, context) => {
      signal = context.signal;
      return new Promise(() => undefined);
    });
    const receiver = inboxReceiver(hooks, { inbox: { pollIntervalMs: 5, handlerTimeoutMs: 20, retryDelaysMs: [] } });
    const event = createTestEvent('invoice.sent');
    await deliver(receiver, event);
    await receiver.inbox.drain();
    expect(signal?.aborted).toBe(true);
    expect(await receiver.inbox.get(event.id)).toMatchObject({ status: 'dead', last_error: { code: 'HANDLER_TIMEOUT', message: 'The handlers did not finish within 20 ms' } });
  });

  it('still answers an invalid payload 422 and quarantines it; nothing is queued', async () => {
    const receiver = inboxReceiver(new Webhooks());
    const event = createTestEvent('invoice.paid', { data: { object: { amount: 'a lot' as never } } });
    expect(await deliver(receiver, event)).toMatchObject({ status: 422, body: { error: { code: 'VALIDATION_ERROR' } } });
    expect(await receiver.inbox.list()).toEqual([]);
    expect(await receiver.store.quarantine.list()).toHaveLength(1);
  });

  it('answers 503 and acknowledges nothing when the store cannot take the event', async () => {
    const store = memoryStore();
    vi.spyOn(store.inbox!, 'enqueue').mockRejectedValue(new Error('disk full'));
    const receiver = inboxReceiver(new Webhooks(), { store });
    expect(await deliver(receiver, createTestEvent('invoice.paid'))).toMatchObject({ status: 503, body: { error: { code: 'STORE_UNAVAILABLE' } } });
  });

  it('runs no more handlers at once than the concurrency', async () => {
    const calls = new HeldCalls<string>();
    const hooks = new Webhooks().onAny((event) => calls.hold(event.id));
    const receiver = inboxReceiver(hooks, { inbox: { pollIntervalMs: 5, concurrency: 3 } });
    await Promise.all(Array.from({ length: 20 }, () => deliver(receiver, createTestEvent('customer.updated'))));
    // Three handlers held: the worker has filled its slots and takes nothing more.
    await calls.arrived(3);
    expect(await receiver.inbox.stats()).toMatchObject({ processing: 3, pending: 17 });
    expect(calls.running).toBe(3);
    // One finishes: exactly one more starts.
    calls.release(0);
    await calls.arrived(4);
    expect(await receiver.inbox.stats()).toMatchObject({ processing: 3, pending: 16, done: 1 });
    calls.releaseAll();
    await receiver.inbox.drain();
    expect(calls.most).toBe(3);
    expect(await receiver.inbox.stats()).toMatchObject({ done: 20 });
  });

  it('keeps running handlers while deliveries are being received (acknowledging first never starves the worker)', async () => {
    const seen: string[] = [];
    const receiver = inboxReceiver(new Webhooks().onAny((event) => void seen.push(event.id)));
    // A delivery whose body is still arriving: the receiver is busy receiving the whole time.
    let finishBody!: (body: string) => void;
    const slow = receiver.receive({ rawBody: new Promise<string>((resolve) => (finishBody = resolve)), headers: {}, method: 'POST' });
    const events = Array.from({ length: 30 }, () => createTestEvent('customer.updated'));
    for (const event of events) await deliver(receiver, event);
    await receiver.inbox.drain();
    expect(seen.sort()).toEqual(events.map((event) => event.id).sort());
    finishBody('{}');
    expect((await slow).status).toBe(400);
  });

  it('close() lets running handlers finish', async () => {
    const release = gate();
    const hooks = new Webhooks().on('invoice.paid', async () => {
      await release.opened;
    });
    const receiver = inboxReceiver(hooks);
    const event = createTestEvent('invoice.paid');
    await deliver(receiver, event);
    await vi.waitFor(async () => expect((await receiver.inbox.get(event.id))?.status).toBe('processing'));
    const closed = receiver.close();
    release.open();
    await closed;
    expect((await receiver.inbox.get(event.id))?.status).toBe('done');
  });

  it('close() gives back, uncounted, what does not finish in closeTimeoutMs, and aborts it', async () => {
    let signal: AbortSignal | undefined;
    const hooks = new Webhooks().on('invoice.paid', (_event, context) => {
      signal = context.signal;
      return new Promise(() => undefined);
    });
    const store = memoryStore();
    const receiver = inboxReceiver(hooks, { store, inbox: { pollIntervalMs: 5, closeTimeoutMs: 20 } });
    const event = createTestEvent('invoice.paid');
    await deliver(receiver, event);
    await vi.waitFor(async () => expect((await receiver.inbox.get(event.id))?.status).toBe('processing'));
    await receiver.close();
    expect(signal?.aborted).toBe(true);
    expect(await store.inbox!.get(event.id)).toMatchObject({ status: 'pending', attempts: 0 });
    await expect(receiver.inbox.drain()).rejects.toMatchObject({ code: 'INBOX_CLOSED' });
  });

  it('runs what an earlier process left pending when a receiver starts', async () => {
    const store = memoryStore();
    const stopped = inboxReceiver(new Webhooks(), { store });
    await stopped.close();
    const event = createTestEvent('customer.created');
    expect(await deliver(stopped, event)).toMatchObject({ status: 200, body: { queued: true } });

    const seen: string[] = [];
    const next = inboxReceiver(new Webhooks().onAny((e) => void seen.push(e.id)), { store });
    await next.inbox.drain();
    expect(seen).toEqual([event.id]);
  });

  it('reprocesses a quarantined payload into the inbox', async () => {
    const seen: string[] = [];
    const store = memoryStore();
    const strict = createReceiver({ secret: SECRET, store, logger: false, clock: clock.now, onUnknownEvent: 'acknowledge' });
    receivers.push(strict);
    const event = { ...createTestEvent('invoice.paid'), type: 'invoice.refunded' };
    await deliver(strict, event);
    const [entry] = await store.quarantine.list();
    // A later version learns the type… here: the payload is edited back to a known one.
    const receiver = inboxReceiver(new Webhooks().onAny((e) => void seen.push(e.type)), { store });
    entry!.raw_body = Buffer.from(JSON.stringify({ ...event, type: 'invoice.paid' }));
    vi.spyOn(store.quarantine, 'get').mockResolvedValue(entry);
    expect(await receiver.reprocess(entry!.id)).toMatchObject({ status: 200, body: { queued: true } });
    await receiver.inbox.drain();
    expect(seen).toEqual(['invoice.paid']);
  });
});

describe('inbox mode on SQLite: atomic effects commit with "done"', () => {
  let dir: string;
  let db: Database.Database;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'acct-webhook-inbox-'));
    db = new Database(join(dir, 'app.db'));
    db.exec('CREATE TABLE payments (event_id TEXT NOT NULL, amount INTEGER NOT NULL)');
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies the effect once, in the transaction that marks the event done; a failed run applies nothing', async () => {
    let runs = 0;
    const hooks = new Webhooks().on('payment.received', (event, { atomic }) => {
      runs++;
      atomic((tx) => tx.prepare('INSERT INTO payments VALUES (?, ?)').run(event.id, event.data.object.amount));
      if (runs === 1) throw new Error('after the effect was registered');
    });
    const receiver = createReceiver({ secret: SECRET, handlers: hooks, store: sqliteStore(db), logger: false, inbox: { pollIntervalMs: 5, retryDelaysMs: [0] } });
    try {
      const event = createTestEvent('payment.received');
      const { body, headers } = signedRequest(event, SECRET);
      expect((await receiver.receive({ rawBody: body, headers, method: 'POST' })).body).toMatchObject({ queued: true });
      expect((await receiver.receive({ rawBody: body, headers, method: 'POST' })).body).toMatchObject({ duplicate: true });
      await receiver.inbox.drain();
      expect(runs).toBe(2);
      expect(db.prepare('SELECT event_id, amount FROM payments').all()).toEqual([{ event_id: event.id, amount: 16950 }]);
      expect(db.prepare('SELECT status FROM acct_webhook_inbox WHERE event_id = ?').get(event.id)).toEqual({ status: 'done' });
    } finally {
      await receiver.close();
    }
  });
});

describe('inbox mode on SQLite: the worker in the process that stored the events', () => {
  let dir: string;
  let file: string;
  let receiver: Receiver | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'acct-webhook-inbox-'));
    file = join(dir, 'events.db');
  });
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
    rmSync(dir, { recursive: true, force: true });
  });
  const deliver = (event: object) => {
    const { body, headers } = signedRequest(event, SECRET);
    return receiver!.receive({ rawBody: body, headers, method: 'POST' });
  };
  /** `count` events stored in the inbox by a receiver whose worker is stopped, none of them run yet. */
  const queueWhileStopped = async (count: number) => {
    const stopped = createReceiver({ secret: SECRET, store: sqliteStore(file), logger: false, inbox: true });
    await stopped.close();
    receiver = stopped;
    const events = Array.from({ length: count }, () => createTestEvent('customer.updated'));
    for (const event of events) expect((await deliver(event)).body).toMatchObject({ queued: true });
    await stopped.close();
    return events;
  };

  it('runs an event with what its stored bytes say when they are not the bytes it received (the kept parse is not used)', async () => {
    const release = gate();
    const seen: unknown[] = [];
    const first = createTestEvent('invoice.paid');
    const hooks = new Webhooks().onAny(async (event) => {
      if (event.id === first.id) await release.opened;
      seen.push(event.data.object);
    });
    receiver = createReceiver({ secret: SECRET, handlers: hooks, store: sqliteStore(file), logger: false, inbox: { pollIntervalMs: 5, concurrency: 1 } });
    await deliver(first);
    await vi.waitFor(async () => expect((await receiver!.inbox.get(first.id))?.status).toBe('processing'));
    // Held behind the first (one slot): the second waits pending while another writer changes
    // its stored bytes (as a row written by another process under the same id would be).
    const second = createTestEvent('customer.updated');
    expect((await deliver(second)).body).toMatchObject({ queued: true });
    const stored = { ...second, data: { object: { ...second.data.object, email: 'changed@example.com' } } };
    const other = new Database(file);
    try {
      expect(other.prepare('UPDATE acct_webhook_inbox SET raw_body = ? WHERE event_id = ?').run(Buffer.from(JSON.stringify(stored)), second.id).changes).toBe(1);
    } finally {
      other.close();
    }
    release.open();
    await receiver.inbox.drain();
    expect(seen).toEqual([first.data.object, stored.data.object]);
  });

  it('claims the next events as one batch when the runs of a claim finish together, not one claim per finished run', async () => {
    const events = await queueWhileStopped(20);

    const store = sqliteStore(file);
    const batches: number[] = [];
    const claim = store.inbox!.claim.bind(store.inbox);
    vi.spyOn(store.inbox!, 'claim').mockImplementation(async (...args) => {
      const claimed = await claim(...args);
      if (claimed.length > 0) batches.push(claimed.length);
      return claimed;
    });
    const seen: string[] = [];
    receiver = createReceiver({ secret: SECRET, handlers: new Webhooks().onAny((event) => void seen.push(event.id)), store, logger: false, inbox: { concurrency: 5 } });
    await receiver.inbox.drain();
    expect(seen.sort()).toEqual(events.map((event) => event.id).sort());
    expect(batches).toEqual([5, 5, 5, 5]);
  });

  it("writes the outcomes of a claim's runs and the claim of the next events in one SQLite transaction", async () => {
    await queueWhileStopped(15);

    // Each transaction of the store's group commit numbered as it starts: a write resolves right
    // after its commit, before the next transaction starts, so the number it sees is its own.
    const db = new Database(file);
    let transactions = 0;
    const transaction = db.transaction.bind(db);
    vi.spyOn(db, 'transaction').mockImplementation((fn) => {
      const made = transaction(fn);
      const counted = ((...args: unknown[]) => made(...args)) as typeof made;
      return Object.assign(counted, {
        deferred: (...args: unknown[]) => made.deferred(...args),
        exclusive: (...args: unknown[]) => made.exclusive(...args),
        immediate: (...args: unknown[]) => {
          transactions++;
          return made.immediate(...args);
        },
      });
    });
    const store = sqliteStore(db);
    const claims: number[] = [];
    const completions: number[] = [];
    const inbox = store.inbox!;
    const claim = inbox.claim.bind(inbox);
    const complete = inbox.complete.bind(inbox);
    vi.spyOn(inbox, 'claim').mockImplementation(async (...args) => {
      const claimed = await claim(...args);
      if (claimed.length > 0) claims.push(transactions);
      return claimed;
    });
    vi.spyOn(inbox, 'complete').mockImplementation(async (...args) => {
      const completed = await complete(...args);
      completions.push(transactions);
      return completed;
    });
    receiver = createReceiver({ secret: SECRET, handlers: new Webhooks().onAny(() => undefined), store, logger: false, inbox: { concurrency: 5 } });
    await receiver.inbox.drain();
    await receiver.close();
    db.close();
    expect(completions).toHaveLength(15);
    expect(claims).toHaveLength(3);
    // The second and third claims were committed with the completions of the runs before them.
    expect(completions.filter((n) => n === claims[1])).toHaveLength(5);
    expect(completions.filter((n) => n === claims[2])).toHaveLength(5);
  });
});

describe('inbox mode configuration', () => {
  it('refuses a lease that cannot outlast the handler budget, when the factory runs', () => {
    expect(() => createReceiver({ secret: SECRET, store: memoryStore(), inbox: { handlerTimeoutMs: 60_000, leaseMs: 60_000 } })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: { option: 'inbox.leaseMs', reason: expect.stringContaining('outlast') } }),
    );
    const receiver = createReceiver({ secret: SECRET, store: memoryStore(), logger: false, inbox: { handlerTimeoutMs: 60_000, leaseMs: 65_000 } });
    void receiver.close();
  });

  it.each([
    ['inbox: true', true],
    ['inbox options without a budget', { concurrency: 4 }],
    ['inbox options with their own budget', { handlerTimeoutMs: 120_000 }],
  ])('refuses a top-level handlerTimeoutMs with %s, naming inbox.handlerTimeoutMs (direct mode keeps it)', (_case, inbox) => {
    const refused = () => createReceiver({ secret: SECRET, store: memoryStore(), logger: false, handlerTimeoutMs: 60_000, inbox });
    expect(refused).toThrow(ConfigurationError);
    expect(refused).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: { option: 'handlerTimeoutMs', reason: expect.stringContaining('inbox.handlerTimeoutMs') } }),
    );
    void createReceiver({ secret: SECRET, store: memoryStore(), logger: false, handlerTimeoutMs: 60_000, inbox: false }).close();
  });

  it.each([
    ['a store without an inbox', { store: { ...memoryStore(), inbox: undefined }, inbox: true }, 'store'],
    ['a store without object versions', { store: { ...memoryStore(), versions: undefined }, ordering: true }, 'store'],
    ['a concurrency of 0', { store: memoryStore(), inbox: { concurrency: 0 } }, 'inbox.concurrency'],
    ['an unknown inbox option', { store: memoryStore(), inbox: { workers: 2 } }, 'inbox.workers'],
    ['a negative retry delay', { store: memoryStore(), inbox: { retryDelaysMs: [-1] } }, 'inbox.retryDelaysMs.0'],
    ['an unknown onStale', { store: memoryStore(), ordering: { onStale: 'drop' } }, 'ordering'],
  ])('refuses %s', (_case, options, option) => {
    let thrown: unknown;
    try {
      createReceiver({ secret: SECRET, logger: false, ...(options as object) });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigurationError);
    expect((thrown as ConfigurationError).details.option).toBe(option);
  });
});
