import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  Dispatcher,
  DELIVERY_TIMEOUT_MS,
  DISPATCH_LEASE_MARGIN_MS,
  SCHEMA_VERSION,
  SqliteDispatchStorage,
  type DispatchStorage,
} from '../../src/dispatcher/index.js';
import { DUE_DELIVERIES_SQL, NEXT_DUE_SQL } from '../../src/dispatcher/sqlite-storage.js';
import { createTestEvent } from '../../src/testing/index.js';
import { FakeClock } from '../helpers/clock.js';
import { withServer } from '../helpers/server.js';
import { clockedDispatcher, Receiver, tempDir, testDispatcher } from './fixtures.js';

function openStorage(file: string): SqliteDispatchStorage {
  const storage = new SqliteDispatchStorage(file);
  return storage;
}

async function seed(storage: DispatchStorage, { webhooks, events, url, now }: { webhooks: number; events: number; url: string; now: number }) {
  const ids = Array.from({ length: webhooks }, (_, i) => `wh_${i}`);
  for (const id of ids) {
    await storage.insertWebhook({ id, url, events: ['*'], headers: {}, status: 'active', secret: 'whsec_seed', created_at: now, updated_at: now });
  }
  for (let e = 0; e < events; e++) {
    const event = createTestEvent('invoice.paid', { id: `evt_${e}` });
    await storage.insertEvent(
      { id: event.id, type: event.type, payload: JSON.stringify(event), correlation_id: event.correlation_id, test: false, created_at: now },
      ids.map((webhookId) => ({ id: `dlv_${e}_${webhookId}`, webhook_id: webhookId, next_attempt_at: now })),
    );
  }
}

describe('SQLite storage: schema', () => {
  it('migrates once, idempotently, into dispatch_ tables, with WAL and synchronous=NORMAL', () => {
    const file = join(tempDir(), 'dispatch.db');
    const first = openStorage(file);
    void first.close();
    const storage = openStorage(file);
    const db = storage.db;
    expect(db.prepare('SELECT version FROM dispatch_schema_migrations').all()).toEqual([{ version: SCHEMA_VERSION }]);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
    expect(tables).toEqual(
      ['dispatch_attempts', 'dispatch_deliveries', 'dispatch_events', 'dispatch_schema_migrations', 'dispatch_webhooks'].map((name) => ({ name })),
    );
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    void storage.close();
  });

  it('answers both worker questions from the (status, next_attempt_at) index', () => {
    const storage = openStorage(join(tempDir(), 'dispatch.db'));
    const plan = (sql: string, ...params: number[]) =>
      storage.db
        .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...params)
        .map((row) => row.detail)
        .join('\n');
    expect(plan(DUE_DELIVERIES_SQL, 0, 10)).toMatch(/SEARCH d USING INDEX dispatch_deliveries_due/);
    expect(plan(DUE_DELIVERIES_SQL, 0, 10)).not.toMatch(/SCAN d\b|TEMP B-TREE/);
    expect(plan(NEXT_DUE_SQL)).toMatch(/USING (COVERING )?INDEX dispatch_deliveries_due/);
    void storage.close();
  });

  it('refuses a database written by a newer version, when the Dispatcher is built', () => {
    const file = join(tempDir(), 'dispatch.db');
    const storage = openStorage(file);
    storage.db.prepare('INSERT INTO dispatch_schema_migrations (version, applied_at) VALUES (?, ?)').run(SCHEMA_VERSION + 1, 'later');
    void storage.close();
    expect(() => new Dispatcher({ database: file, logger: false })).toThrow(ConfigurationError);
  });

  it('refuses a file it cannot open, when the Dispatcher is built', () => {
    expect(() => new Dispatcher({ database: join(tempDir(), 'missing-dir', 'x.db'), logger: false })).toThrow(ConfigurationError);
  });

  it("runs on ':memory:' (a database that lives as long as the Dispatcher)", async () => {
    const dispatcher = new Dispatcher({ database: ':memory:', logger: false, allowInsecureUrls: true });
    await dispatcher.webhooks.create({ url: 'http://127.0.0.1:9/', events: ['*'] });
    expect(await dispatcher.webhooks.list()).toHaveLength(1);
    await dispatcher.close();
  });

  it('works on an open better-sqlite3 database and leaves it open on close', async () => {
    const db = new BetterSqlite3(join(tempDir(), 'shared.db'));
    const dispatcher = new Dispatcher({ database: db, logger: false, allowInsecureUrls: true });
    await dispatcher.webhooks.create({ url: 'http://127.0.0.1:9/', events: ['*'] });
    await dispatcher.close();
    expect(db.open).toBe(true);
    expect(db.prepare('SELECT COUNT(*) AS n FROM dispatch_webhooks').get()).toEqual({ n: 1 });
    db.close();
  });
});

describe('SQLite storage: leases', () => {
  it('two claims never get the same delivery; a lease makes it not due until it expires', async () => {
    const storage = openStorage(join(tempDir(), 'dispatch.db'));
    const now = 1_000_000;
    await seed(storage, { webhooks: 3, events: 5, url: 'https://receiver.example/', now });
    const a = await storage.claimDue({ now, limit: 10, lease: { owner: 'a', until: now + 100 } });
    const b = await storage.claimDue({ now, limit: 10, lease: { owner: 'b', until: now + 100 } });
    expect(a).toHaveLength(10);
    expect(b).toHaveLength(5);
    const ids = [...a, ...b].map((job) => job.delivery.id);
    expect(new Set(ids).size).toBe(15);
    expect(await storage.claimDue({ now: now + 99, limit: 10, lease: { owner: 'c', until: now + 200 } })).toHaveLength(0);
    expect(await storage.nextDueAt()).toBe(now + 100);
    const expired = await storage.claimDue({ now: now + 100, limit: 100, lease: { owner: 'c', until: now + 200 } });
    expect(expired).toHaveLength(15);
    expect(expired.every((job) => job.delivery.lease_owner === 'c')).toBe(true);
    void storage.close();
  });

  it('a delivery whose worker died mid-attempt is sent again after the lease, with the same attempt number', async () => {
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      const file = join(tempDir(), 'dispatch.db');
      const clock = new FakeClock();
      const dispatcher = new Dispatcher({ database: file, clock: clock.now, logger: false, allowInsecureUrls: true });
      await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.emit(createTestEvent('invoice.paid'));

      // A worker in another process leases the delivery and dies before it records anything.
      const crashed = openStorage(file);
      const [job] = await crashed.claimDue({ now: clock.now(), limit: 1, lease: { owner: 'crashed', until: clock.now() + DELIVERY_TIMEOUT_MS + DISPATCH_LEASE_MARGIN_MS } });
      void crashed.close();
      expect(job).toBeDefined();

      expect(await dispatcher.runDue()).toBe(0);
      clock.advance(DELIVERY_TIMEOUT_MS + DISPATCH_LEASE_MARGIN_MS - 1);
      expect(await dispatcher.runDue()).toBe(0);
      clock.advance(1);
      expect(await dispatcher.runDue()).toBe(1);
      const detail = await dispatcher.deliveries.get(job!.delivery.id);
      expect(detail).toMatchObject({ status: 'delivered', attempt_count: 1 });
      expect(detail.attempts.map((attempt) => attempt.attempt_number)).toEqual([1]);
      await dispatcher.close();
    });
  });

  it('two Dispatchers on one file drain the same deliveries: every attempt is sent exactly once', async () => {
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      const file = join(tempDir(), 'dispatch.db');
      const a = testDispatcher({ database: file, concurrency: 8 });
      const b = testDispatcher({ database: file, concurrency: 8 });
      await a.webhooks.create({ url, events: ['*'] });
      const emitted: string[] = [];
      for (let i = 0; i < 300; i++) emitted.push((await a.emit(createTestEvent('payment.received'))).id);

      const [byA, byB] = await Promise.all([a.runDue(), b.runDue()]);
      expect(byA + byB).toBe(300);
      expect(byA).toBeGreaterThan(0);
      expect(byB).toBeGreaterThan(0);
      expect(receiver.eventIds().sort()).toEqual([...emitted].sort());
      const delivered = await a.deliveries.list({ status: 'delivered', limit: 1000 });
      expect(delivered).toHaveLength(300);
      expect(delivered.every((delivery) => delivery.attempt_count === 1)).toBe(true);
    });
  });

  it('two running workers on one file send each event once', async () => {
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      const file = join(tempDir(), 'dispatch.db');
      const a = testDispatcher({ database: file, concurrency: 5 });
      const b = testDispatcher({ database: file, concurrency: 5, pollIntervalMs: 10 });
      await a.webhooks.create({ url, events: ['*'] });
      await Promise.all([a.start(), b.start()]);
      for (let i = 0; i < 200; i++) await a.emit(createTestEvent('invoice.created'));
      await receiver.received(200);
      await Promise.all([a.stop(), b.stop()]);
      expect(new Set(receiver.eventIds()).size).toBe(200);
      expect(receiver.requests).toHaveLength(200);
    });
  });
});

describe('100 000 pending deliveries', () => {
  it('the worker reads them in batches of at most `concurrency`, never all at once', async () => {
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      const inner = openStorage(join(tempDir(), 'dispatch.db'));
      const clock = new FakeClock();
      await seed(inner, { webhooks: 1000, events: 100, url, now: clock.now() });

      const claims: { limit: number; got: number }[] = [];
      const storage: DispatchStorage = new Proxy(inner, {
        get(target, property, receiverObject) {
          if (property === 'claimDue') {
            return async (request: Parameters<DispatchStorage['claimDue']>[0]) => {
              const jobs = await target.claimDue(request);
              claims.push({ limit: request.limit, got: jobs.length });
              return jobs;
            };
          }
          if (property === 'listDeliveries' || property === 'exportAttempts') throw new Error(`the worker must not call ${property}`);
          return Reflect.get(target, property, receiverObject) as unknown;
        },
      });
      const { dispatcher } = clockedDispatcher({ database: storage, concurrency: 10, allowedHosts: ['127.0.0.1'] });
      await dispatcher.start();
      await receiver.received(200);
      await dispatcher.stop();
      const count = (status: string) =>
        (inner.db.prepare('SELECT COUNT(*) AS n FROM dispatch_deliveries WHERE status = ?').get(status) as { n: number }).n;

      expect(claims.every((claim) => claim.limit <= 10 && claim.got <= claim.limit)).toBe(true);
      const claimed = claims.reduce((sum, claim) => sum + claim.got, 0);
      expect(claimed).toBe(receiver.requests.length); // nothing read that was not sent
      expect(count('delivered')).toBe(receiver.requests.length);
      expect(count('retrying')).toBe(100_000 - receiver.requests.length);
      await dispatcher.close();
      await inner.close();
    });
  });
});
