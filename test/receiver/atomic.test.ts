import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createReceiver, memoryStore, sqliteStore, Webhooks } from '../../src/index.js';
import { createTestEvent, signedRequest } from '../../src/testing/index.js';

const SECRET = 'whsec_atomicEffectsSecret000000000000';

describe('atomic effects: the handler writes and the completion mark commit together', () => {
  let dir: string;
  let db: Database.Database;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'acct-webhook-atomic-'));
    db = new Database(join(dir, 'app.db'));
    db.exec('CREATE TABLE payments (event_id TEXT NOT NULL, amount INTEGER NOT NULL)');
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function receiverWith(hooks: Webhooks, handlerTimeoutMs?: number) {
    return createReceiver({ secret: SECRET, handlers: hooks, store: sqliteStore(db), logger: false, ...(handlerTimeoutMs ? { handlerTimeoutMs } : {}) });
  }
  const rows = () => db.prepare('SELECT event_id, amount FROM payments').all();
  const deliver = (receiver: ReturnType<typeof receiverWith>, body: string) =>
    receiver.receive({ rawBody: body, headers: signedRequest(JSON.parse(body) as object, SECRET).headers, method: 'POST' });

  it('applies the effect once with the completion; a redelivery is a duplicate', async () => {
    const hooks = new Webhooks().on('payment.received', (event, { atomic }) => {
      atomic((tx) => tx.prepare('INSERT INTO payments VALUES (?, ?)').run(event.id, event.data.object.amount));
    });
    const receiver = receiverWith(hooks);
    const { body } = signedRequest(createTestEvent('payment.received'), SECRET);
    expect((await deliver(receiver, body)).status).toBe(200);
    expect((await deliver(receiver, body)).body).toMatchObject({ duplicate: true });
    expect(rows()).toEqual([{ event_id: JSON.parse(body).id, amount: 16950 }]);
  });

  it('applies nothing when an effect throws: 500, the claim released, and the retry applies it once', async () => {
    let fail = true;
    const hooks = new Webhooks().on('payment.received', (event, { atomic }) => {
      atomic((tx) => tx.prepare('INSERT INTO payments VALUES (?, ?)').run(event.id, 1));
      atomic(() => {
        if (fail) throw new Error('ledger constraint');
      });
    });
    const receiver = receiverWith(hooks);
    const { body } = signedRequest(createTestEvent('payment.received'), SECRET);
    const failed = await deliver(receiver, body);
    expect(failed).toMatchObject({ status: 500, body: { error: { code: 'HANDLER_FAILED' } } });
    expect(rows()).toEqual([]);
    fail = false;
    expect((await deliver(receiver, body)).status).toBe(200);
    expect(rows()).toHaveLength(1);
  });

  it('applies the effects of a handler that finishes after its budget only if nobody took the event over', async () => {
    let finish!: () => void;
    const hooks = new Webhooks().on('invoice.paid', async (event, { atomic }) => {
      atomic((tx) => tx.prepare('INSERT INTO payments VALUES (?, ?)').run(event.id, 2));
      await new Promise<void>((resolve) => (finish = resolve));
    });
    const receiver = receiverWith(hooks, 30);
    const { body } = signedRequest(createTestEvent('invoice.paid'), SECRET);
    expect((await deliver(receiver, body)).status).toBe(503);
    finish();
    await expect.poll(() => rows().length).toBe(1);
    expect((await deliver(receiver, body)).body).toMatchObject({ duplicate: true });
  });

  it('refuses atomic() on a store that cannot offer it', async () => {
    const reported: unknown[] = [];
    const hooks = new Webhooks()
      .on('invoice.paid', (_event, { atomic }) => atomic(() => undefined))
      .onError((error) => {
        reported.push(...error.errors);
      });
    const receiver = createReceiver({ secret: SECRET, handlers: hooks, store: memoryStore(), logger: false });
    const { body, headers } = signedRequest(createTestEvent('invoice.paid'), SECRET);
    expect((await receiver.receive({ rawBody: body, headers, method: 'POST' })).status).toBe(500);
    expect(reported).toEqual([expect.objectContaining({ code: 'INVALID_CONFIGURATION' })]);
  });
});
