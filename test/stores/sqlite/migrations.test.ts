import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../../src/dispatcher.js';
import { sqliteDispatchStore, sqliteStore } from '../../../src/stores/sqlite/index.js';
import { STORE_MIGRATIONS } from '../../../src/stores/sqlite/store-migrations.js';
import { DISPATCH_MIGRATIONS } from '../../../src/stores/sqlite/dispatch-migrations.js';
import { createTestEvent } from '../../../src/testing/index.js';
import { verifySignature } from '../../../src/index.js';
import { tempDir } from '../../dispatcher/fixtures.js';
import { DISPATCH_SCHEMA_0X, STORE_SCHEMA_0X } from '../../fixtures/sqlite-0x-schemas.js';
import { FakeClock } from '../../helpers/clock.js';
import { expectDeliveriesReadAsBefore, expectInboxRunsAsBefore, expectReceivedReadsAsBefore, VERSION_4_WAITING, VERSION_5_DELIVERIES } from '../../helpers/migrated-reads.js';
import { withServer } from '../../helpers/server.js';
import { Receiver } from '../../dispatcher/fixtures.js';

const T0 = Date.UTC(2026, 10, 1, 9, 0, 0);

/** A file as 0.x left it: its layout and `fill`'s rows, no acct_webhook_migrations table. */
function fileOf0x(schema: string, fill: (db: BetterSqlite3.Database) => void): string {
  const file = join(tempDir(), 'written-by-0x.db');
  const db = new BetterSqlite3(file);
  db.exec(schema);
  fill(db);
  db.close();
  return file;
}

/** A file as an older release left it: `component`'s first `version` migrations applied and recorded. */
function fileAtVersion(name: string, component: 'idempotency' | 'dispatch', migrations: readonly string[], version: number): { file: string; db: BetterSqlite3.Database } {
  const file = join(tempDir(), name);
  const db = new BetterSqlite3(file);
  db.exec(`CREATE TABLE acct_webhook_migrations (component TEXT NOT NULL, version INTEGER NOT NULL, applied_at TEXT NOT NULL DEFAULT 'then', PRIMARY KEY (component, version)) STRICT`);
  for (const [index, sql] of migrations.slice(0, version).entries()) {
    db.exec(sql);
    db.prepare('INSERT INTO acct_webhook_migrations (component, version) VALUES (?, ?)').run(component, index + 1);
  }
  return { file, db };
}

function read<T>(file: string, sql: string): T[] {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

describe('SQLite migrations', () => {
  it("adopt a receiver's 0.x file as version 1 and migrate it on: handled events stay handled, quarantined payloads stay", async () => {
    const file = fileOf0x(STORE_SCHEMA_0X, (db) => {
      db.prepare(`INSERT INTO acct_webhook_events (event_id, state, token, lease_until, event_type, first_seen_at, completed_at)
        VALUES ('evt_done', 'completed', 't1', 0, 'invoice.paid', ?, ?)`).run(T0, T0 + 5);
      db.prepare(`INSERT INTO acct_webhook_events (event_id, state, token, lease_until, event_type, first_seen_at)
        VALUES ('evt_running', 'processing', 't2', ?, 'invoice.sent', ?)`).run(T0 + 30_000, T0);
      db.prepare(`INSERT INTO acct_webhook_quarantine (id, key, reason, event_id, event_type, error_code, error_message, raw_body, first_received_at, last_received_at)
        VALUES ('qev_1', 'evt_bad', 'invalid_payload', 'evt_bad', 'invoice.paid', 'VALIDATION_ERROR', 'amount', ?, ?, ?)`).run(Buffer.from('{}'), T0, T0);
    });

    const store = sqliteStore(file);
    expect(await store.claim('evt_done', { now: T0 + 10, leaseMs: 30_000 })).toEqual({ status: 'completed', completedAt: T0 + 5 });
    expect(await store.claim('evt_running', { now: T0 + 10, leaseMs: 30_000 })).toEqual({ status: 'in_progress', leaseExpiresAt: T0 + 30_000 });
    expect(await store.quarantine.list()).toMatchObject([{ id: 'qev_1', event_id: 'evt_bad', error_code: 'VALIDATION_ERROR' }]);
    await store.close();
    const versions = [
      { component: 'idempotency', version: 1 },
      { component: 'idempotency', version: 2 },
      { component: 'idempotency', version: 3 },
      { component: 'idempotency', version: 4 },
      { component: 'idempotency', version: 5 },
      { component: 'idempotency', version: 6 },
    ];
    expect(read(file, 'SELECT component, version FROM acct_webhook_migrations ORDER BY version')).toEqual(versions);

    // Opening it again applies nothing.
    await sqliteStore(file).close();
    expect(read(file, 'SELECT component, version FROM acct_webhook_migrations ORDER BY version')).toEqual(versions);
  });

  it("adopt a dispatcher's 0.x file: its registrations, deliveries and log stay, a disabled webhook's deliveries wait", async () => {
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      const event = createTestEvent('invoice.paid');
      const file = fileOf0x(DISPATCH_SCHEMA_0X, (db) => {
        const webhook = db.prepare(`INSERT INTO dispatch_webhooks (id, url, events, headers, status, secret, created_at, updated_at)
          VALUES (?, ?, '["*"]', '{}', ?, 'whsec_0x', ?, ?)`);
        webhook.run('wh_on', url, 'active', T0, T0);
        webhook.run('wh_off', url, 'disabled', T0, T0);
        db.prepare(`INSERT INTO dispatch_events (id, type, payload, correlation_id, test, created_at) VALUES (?, 'invoice.paid', ?, ?, 0, ?)`).run(
          event.id,
          JSON.stringify(event),
          event.correlation_id,
          T0,
        );
        const delivery = db.prepare(`INSERT INTO dispatch_deliveries (id, event_id, webhook_id, event_type, correlation_id, status, attempt_count,
            automatic_attempt_count, next_attempt_at, test, created_at, updated_at)
          VALUES (?, ?, ?, 'invoice.paid', ?, 'retrying', 1, 1, ?, 0, ?, ?)`);
        delivery.run('dlv_on', event.id, 'wh_on', event.correlation_id, T0 + 60_000, T0, T0);
        delivery.run('dlv_off', event.id, 'wh_off', event.correlation_id, T0 + 60_000, T0, T0);
        db.prepare(`INSERT INTO dispatch_attempts (id, delivery_id, webhook_id, url, event_id, event_type, attempt_number, attempted_at,
            response_status, response_time_ms, receiver_ip, correlation_id, response_body, response_body_truncated, error_kind, error_message, manual, test)
          VALUES ('att_0x', 'dlv_on', 'wh_on', ?, ?, 'invoice.paid', 1, ?, 500, 12, '127.0.0.1', ?, 'no', 0, 'http_status', 'answered 500', 0, 0)`).run(
          url,
          event.id,
          T0,
          event.correlation_id,
        );
      });

      const clock = new FakeClock(T0 + 60_000);
      const dispatcher = new Dispatcher({ database: file, clock: clock.now, logger: false, allowInsecureUrls: true });
      expect((await dispatcher.webhooks.list()).map((webhook) => [webhook.id, webhook.status])).toEqual([
        ['wh_on', 'active'],
        ['wh_off', 'disabled'],
      ]);
      const before = await dispatcher.deliveries.get('dlv_on');
      expect(before).toMatchObject({ status: 'retrying', attempt_count: 1, next_attempt_at: new Date(T0 + 60_000).toISOString() });
      expect(before.attempts).toMatchObject([{ id: 'att_0x', attempt_number: 1, response_status: 500, request_payload: JSON.stringify(event), manual: false }]);

      expect(await dispatcher.runDue()).toBe(1);
      expect(await dispatcher.deliveries.get('dlv_on')).toMatchObject({ status: 'delivered', attempt_count: 2 });
      expect(await dispatcher.deliveries.get('dlv_off')).toMatchObject({ status: 'retrying', attempt_count: 1 });
      await dispatcher.webhooks.update('wh_off', { status: 'active' });
      expect(await dispatcher.runDue()).toBe(1);
      expect(receiver.requests).toHaveLength(2);
      await dispatcher.close();

      expect(read(file, 'SELECT component, version FROM acct_webhook_migrations ORDER BY version')).toEqual([
        { component: 'dispatch', version: 1 },
        { component: 'dispatch', version: 2 },
        { component: 'dispatch', version: 3 },
        { component: 'dispatch', version: 4 },
        { component: 'dispatch', version: 5 },
        { component: 'dispatch', version: 6 },
      { component: 'dispatch', version: 7 },
      { component: 'dispatch', version: 8 },
      { component: 'dispatch', version: 9 },
      { component: 'dispatch', version: 10 },
      ]);
      // What a 0.x build reads: version 2, which it refuses as too new instead of misreading the file.
      expect(read(file, 'SELECT MAX(version) AS version FROM dispatch_schema_migrations')).toEqual([{ version: 2 }]);
    });
  });

  it('keep both stores in one file apart, each with its own versions', async () => {
    const file = join(tempDir(), 'shared.db');
    await sqliteStore(file).close();
    await sqliteDispatchStore(file).close();
    await sqliteStore(file).close();
    expect(read(file, 'SELECT component, version FROM acct_webhook_migrations ORDER BY component, version')).toEqual([
      { component: 'dispatch', version: 1 },
      { component: 'dispatch', version: 2 },
      { component: 'dispatch', version: 3 },
      { component: 'dispatch', version: 4 },
      { component: 'dispatch', version: 5 },
      { component: 'dispatch', version: 6 },
      { component: 'dispatch', version: 7 },
      { component: 'dispatch', version: 8 },
      { component: 'dispatch', version: 9 },
      { component: 'dispatch', version: 10 },
      { component: 'idempotency', version: 1 },
      { component: 'idempotency', version: 2 },
      { component: 'idempotency', version: 3 },
      { component: 'idempotency', version: 4 },
      { component: 'idempotency', version: 5 },
      { component: 'idempotency', version: 6 },
    ]);
  });

  it("make a 1.0 receiver's file STRICT (version 3) with its inbox, its records and its objects' versions as they were", async () => {
    // A file as 1.0 left it: versions 1 and 2, rows in every table.
    const { file, db } = fileAtVersion('written-by-1.0.db', 'idempotency', STORE_MIGRATIONS.migrations, 2);
    db.prepare("INSERT INTO acct_webhook_events VALUES ('evt_done', 'completed', 'tok', 0, 'invoice.paid', ?, ?, 2)").run(T0, T0 + 5);
    db.prepare("INSERT INTO acct_webhook_events VALUES ('evt_busy', 'processing', 'tok2', ?, NULL, ?, NULL, 1)").run(T0 + 60_000, T0 + 1);
    db.prepare(
      "INSERT INTO acct_webhook_inbox (event_id, event_type, status, raw_body, headers, received_at, event_created, ordering_key, ordering_rank, attempts, next_attempt_at, last_error_code, last_error_message) VALUES ('evt_dead', 'invoice.paid', 'dead', ?, '{\"headers\":{},\"secret_index\":0,\"signature_scheme\":\"v1\"}', ?, ?, 'invoice:inv_1', 3, 8, ?, 'HANDLER_FAILED', 'bank down')",
    ).run(Buffer.from('{"id":"evt_dead"}'), T0, T0 - 1, T0);
    db.prepare("INSERT INTO acct_webhook_object_versions VALUES ('invoice:inv_1', ?, 3, 'evt_done', ?)").run(T0 - 2, T0);
    db.close();

    const store = sqliteStore(file);
    expect(await store.claim('evt_done', { now: T0 + 10, leaseMs: 1_000 })).toEqual({ status: 'completed', completedAt: T0 + 5 });
    expect(await store.claim('evt_busy', { now: T0 + 10, leaseMs: 1_000 })).toEqual({ status: 'in_progress', leaseExpiresAt: T0 + 60_000 });
    expect(await store.inbox!.get('evt_dead')).toMatchObject({ status: 'dead', attempts: 8, last_error: { code: 'HANDLER_FAILED', message: 'bank down' }, raw_body: Buffer.from('{"id":"evt_dead"}') });
    expect(await store.versions!.newest('invoice:inv_1')).toEqual({ key: 'invoice:inv_1', created: T0 - 2, rank: 3, eventId: 'evt_done' });
    await store.close();
    expect(read(file, "SELECT name FROM pragma_table_list WHERE name LIKE 'acct_webhook_%' AND strict = 0")).toEqual([]);
    expect(read(file, "SELECT MAX(version) AS version FROM acct_webhook_migrations WHERE component = 'idempotency'")).toEqual([{ version: STORE_MIGRATIONS.migrations.length }]);
  });

  it("give a version-3 receiver's file the dashboard's indexes (version 4); its rows read as before, through them", async () => {
    const { file, db } = fileAtVersion('written-by-version-3.db', 'idempotency', STORE_MIGRATIONS.migrations, 3);
    const insertRecord = db.prepare('INSERT INTO acct_webhook_events VALUES (?, ?, ?, ?, ?, ?, ?, 1)');
    insertRecord.run('evt_done', 'completed', 'tok', 0, 'invoice.paid', T0, T0 + 5);
    insertRecord.run('evt_failed', 'processing', 'tok2', T0 + 60_000, 'invoice.paid', T0 + 1, null);
    const insertInbox = db.prepare(`INSERT INTO acct_webhook_inbox (event_id, event_type, status, raw_body, headers, received_at, event_created, next_attempt_at, stale, completed_at)
      VALUES (?, ?, ?, ?, '{"headers":{},"secret_index":0,"signature_scheme":"v1"}', ?, ?, ?, ?, ?)`);
    insertInbox.run('evt_in_done', 'invoice.paid', 'done', Buffer.from('{}'), T0 + 2, T0, T0, 0, T0 + 10);
    insertInbox.run('evt_in_stale', 'customer.created', 'done', Buffer.from('{}'), T0 + 3, T0, T0, 1, T0 + 10);
    insertInbox.run('evt_in_dead', 'invoice.paid', 'dead', Buffer.from('{}'), T0 + 4, T0, T0, 0, null);
    db.prepare(`INSERT INTO acct_webhook_quarantine VALUES ('qev_1', 'evt_bad', 'invalid_payload', 'evt_bad', 'invoice.paid', 'VALIDATION_ERROR', 'amount', ?, ?, ?, 1)`).run(Buffer.from('{}'), T0 + 5, T0 + 5);
    db.close();

    const store = sqliteStore(file);
    await expectReceivedReadsAsBefore(store);
    await store.close();
    expect(read(file, "SELECT MAX(version) AS version FROM acct_webhook_migrations WHERE component = 'idempotency'")).toEqual([{ version: STORE_MIGRATIONS.migrations.length }]);
    // Version 5 dropped the type index again (its column is in the received and status indexes).
    expect(read<{ name: string }>(file, "SELECT name FROM sqlite_master WHERE type = 'index' AND name IN ('acct_webhook_events_state', 'acct_webhook_inbox_received', 'acct_webhook_inbox_status', 'acct_webhook_inbox_type', 'acct_webhook_quarantine_received') ORDER BY name").map((row) => row.name)).toEqual([
      'acct_webhook_events_state',
      'acct_webhook_inbox_received',
      'acct_webhook_inbox_status',
      'acct_webhook_quarantine_received',
    ]);
  });

  it("give a version-4 receiver's file the inbox's leaner indexes (version 5); its rows read, run and prune as before", async () => {
    const { file, db } = fileAtVersion('written-by-version-4.db', 'idempotency', STORE_MIGRATIONS.migrations, 4);
    const insertRecord = db.prepare('INSERT INTO acct_webhook_events VALUES (?, ?, ?, ?, ?, ?, ?, 1)');
    insertRecord.run('evt_done', 'completed', 'tok', 0, 'invoice.paid', T0, T0 + 5);
    insertRecord.run('evt_failed', 'processing', 'tok2', T0 + 60_000, 'invoice.paid', T0 + 1, null);
    const insertInbox = db.prepare(`INSERT INTO acct_webhook_inbox (event_id, event_type, status, raw_body, headers, received_at, event_created, next_attempt_at, stale, completed_at, token, lease_until)
      VALUES (?, ?, ?, ?, '{"headers":{},"secret_index":0,"signature_scheme":"v1"}', ?, ?, ?, ?, ?, ?, ?)`);
    insertInbox.run('evt_in_done', 'invoice.paid', 'done', Buffer.from('{}'), T0 + 2, T0, T0, 0, T0 + 10, null, 0);
    insertInbox.run('evt_in_stale', 'customer.created', 'done', Buffer.from('{}'), T0 + 3, T0, T0, 1, T0 + 10, null, 0);
    insertInbox.run('evt_in_dead', 'invoice.paid', 'dead', Buffer.from('{}'), T0 + 4, T0, T0, 0, null, null, 0);
    const waiting = VERSION_4_WAITING;
    insertInbox.run(waiting.pending, waiting.type, 'pending', Buffer.from('{}'), waiting.receivedAt, T0, waiting.receivedAt, 0, null, null, 0);
    insertInbox.run(waiting.expired, waiting.type, 'processing', Buffer.from('{}'), waiting.receivedAt, T0, waiting.receivedAt, 0, null, 'tok_gone', T0);
    db.prepare(`INSERT INTO acct_webhook_quarantine VALUES ('qev_1', 'evt_bad', 'invalid_payload', 'evt_bad', 'invoice.paid', 'VALIDATION_ERROR', 'amount', ?, ?, ?, 1)`).run(Buffer.from('{}'), T0 + 5, T0 + 5);
    db.close();

    const store = sqliteStore(file);
    await expectReceivedReadsAsBefore(store);
    await expectInboxRunsAsBefore(store, store.retentionMs);
    await store.close();
    expect(read(file, "SELECT MAX(version) AS version FROM acct_webhook_migrations WHERE component = 'idempotency'")).toEqual([{ version: 6 }]);
    expect(read<{ name: string }>(file, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'acct_webhook_inbox' AND sql IS NOT NULL ORDER BY name").map((row) => row.name)).toEqual([
      'acct_webhook_inbox_due',
      'acct_webhook_inbox_object',
      'acct_webhook_inbox_received',
      'acct_webhook_inbox_status',
    ]);
  });

  it("give a version-5 dispatcher's file the overview's index (version 6); its deliveries count and chart as before, through it", async () => {
    const { file, db } = fileAtVersion('dispatch-version-5.db', 'dispatch', DISPATCH_MIGRATIONS.migrations, 5);
    db.prepare(`INSERT INTO dispatch_webhooks (id, url, events, headers, status, secret, created_at, updated_at) VALUES ('wh_1', 'https://example.com/hooks', '["*"]', '{}', 'active', 'whsec_test', ?, ?)`).run(T0, T0);
    const insertEvent = db.prepare(`INSERT INTO dispatch_events (id, type, payload, correlation_id, test, created_at) VALUES (?, 'invoice.paid', '{}', 'cor_1', 0, ?)`);
    const insertDelivery = db.prepare(`INSERT INTO dispatch_deliveries (id, event_id, webhook_id, event_type, correlation_id, status, test, created_at, updated_at)
      VALUES (?, ?, 'wh_1', 'invoice.paid', 'cor_1', ?, 0, ?, ?)`);
    for (const [id, status, at] of VERSION_5_DELIVERIES) {
      insertEvent.run(`evt_${id}`, at);
      insertDelivery.run(id, `evt_${id}`, status, at, at);
    }
    db.close();

    const store = sqliteDispatchStore(file);
    await expectDeliveriesReadAsBefore(store);
    await store.close();
    expect(read(file, "SELECT MAX(version) AS version FROM acct_webhook_migrations WHERE component = 'dispatch'")).toEqual([{ version: 10 }]);
    expect(read(file, "SELECT name FROM sqlite_master WHERE type = 'index' AND name IN ('dispatch_deliveries_created', 'dispatch_deliveries_created_status')")).toEqual([{ name: 'dispatch_deliveries_created_status' }]);
  });

  it("give a version-6 dispatcher's registrations the platform's scheme with HMAC (version 7): they sign as before and can move to Standard Webhooks after a rotation", async () => {
    const { file, db } = fileAtVersion('dispatch-version-6.db', 'dispatch', DISPATCH_MIGRATIONS.migrations, 6);
    const legacySecret = 'whsec_Kp3-legacy_base64url_secret_of_43_chars_';
    db.prepare(`INSERT INTO dispatch_webhooks (id, url, events, headers, status, secret, created_at, updated_at) VALUES ('wh_6', 'https://example.com/hooks', '["*"]', '{}', 'active', ?, ?, ?)`).run(legacySecret, T0, T0);
    db.close();
    const receiver = new Receiver();
    await withServer(receiver.listener, async (target) => {
      const clock = new FakeClock(T0);
      const dispatcher = new Dispatcher({ database: file, clock: clock.now, logger: false, allowInsecureUrls: true });
      expect(await dispatcher.webhooks.get('wh_6')).toMatchObject({ scheme: 'svc', algorithm: 'hmac-sha256', public_key: null, previous_secret_expires_at: null });
      await dispatcher.webhooks.update('wh_6', { url: target });
      await dispatcher.emit('invoice.paid', createTestEvent('invoice.paid').data.object, { business_id: 'biz_1' });
      await dispatcher.runDue();
      const [request] = receiver.requests;
      expect(verifySignature({ payload: request!.body, signature: request!.headers['x-svc-signature'], timestamp: request!.headers['x-svc-timestamp'], secret: legacySecret, now: clock.now() })).toMatchObject({ secretIndex: 0 });
      expect(request!.headers['webhook-signature']).toBeUndefined();
      await expect(dispatcher.webhooks.update('wh_6', { scheme: 'both' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'scheme' } });
      await dispatcher.webhooks.rotateSecret('wh_6');
      expect(await dispatcher.webhooks.update('wh_6', { scheme: 'both' })).toMatchObject({ scheme: 'both' });
      await dispatcher.close();
    });
    expect(read(file, "SELECT MAX(version) AS version FROM acct_webhook_migrations WHERE component = 'dispatch'")).toEqual([{ version: 10 }]);
  });

  it("number a version-7 dispatcher's events in the order they were kept (version 8): the feed lists them, and a new one comes after", async () => {
    const { file, db } = fileAtVersion('dispatch-version-7.db', 'dispatch', DISPATCH_MIGRATIONS.migrations, 7);
    const insert = db.prepare(`INSERT INTO dispatch_events (id, type, payload, correlation_id, test, created_at, business_id) VALUES (?, 'invoice.paid', ?, 'cor_1', 0, ?, ?)`);
    insert.run('evt_old_1', '{"id":"evt_old_1"}', T0, 'biz_7');
    insert.run('evt_other', '{"id":"evt_other"}', T0 + 1, 'biz_8');
    insert.run('evt_old_2', '{"id":"evt_old_2"}', T0 + 2, 'biz_7');
    db.close();

    const store = sqliteDispatchStore(file);
    expect((await store.listEvents!({ business_id: 'biz_7', limit: 10 })).map((event) => [event.id, event.payload])).toEqual([
      ['evt_old_1', '{"id":"evt_old_1"}'],
      ['evt_old_2', '{"id":"evt_old_2"}'],
    ]);
    const event = createTestEvent('invoice.paid', { business_id: 'biz_7' });
    await store.insertEvent({ id: event.id, type: event.type, payload: JSON.stringify(event), correlation_id: event.correlation_id, test: false, created_at: T0 - 5 }, []);
    expect((await store.listEvents!({ business_id: 'biz_7', limit: 10 })).map((row) => row.id)).toEqual(['evt_old_1', 'evt_old_2', event.id]);
    await store.close();
    expect(read(file, "SELECT MAX(version) AS version FROM acct_webhook_migrations WHERE component = 'dispatch'")).toEqual([{ version: 10 }]);
  });

  it("give a version-8 dispatcher's registrations no owner (version 9): each still receives every business's events, and a new one receives only its own business's", async () => {
    const { file, db } = fileAtVersion('dispatch-version-8.db', 'dispatch', DISPATCH_MIGRATIONS.migrations, 8);
    db.prepare(`INSERT INTO dispatch_webhooks (id, url, events, headers, status, secret, created_at, updated_at) VALUES ('wh_8', 'https://example.com/hooks', '["*"]', '{}', 'active', 'whsec_old', ?, ?)`).run(T0, T0);
    db.close();
    const receiver = new Receiver();
    await withServer(receiver.listener, async (target) => {
      const clock = new FakeClock(T0);
      const dispatcher = new Dispatcher({ database: file, clock: clock.now, logger: false, allowInsecureUrls: true });
      expect(await dispatcher.webhooks.get('wh_8')).toMatchObject({ business_id: null, scope: 'all' });
      await dispatcher.webhooks.update('wh_8', { url: `${target}/old` });
      const own = await dispatcher.webhooks.create({ business_id: 'biz_1', url: `${target}/own`, events: ['*'] });
      const object = createTestEvent('invoice.paid').data.object;
      await dispatcher.emit('invoice.paid', object, { business_id: 'biz_1' });
      await dispatcher.emit('invoice.paid', object, { business_id: 'biz_2' });
      await dispatcher.runDue();
      const paths = receiver.requests.map((request) => `${request.path} ${(JSON.parse(request.body) as { business_id: string }).business_id}`).sort();
      expect(paths).toEqual(['/old biz_1', '/old biz_2', '/own biz_1']);
      expect(own).toMatchObject({ business_id: 'biz_1', scope: 'business' });
      await dispatcher.close();
    });
    expect(read(file, "SELECT MAX(version) AS version FROM acct_webhook_migrations WHERE component = 'dispatch'")).toEqual([{ version: 10 }]);
  });

  it("rebuild a version-9 dispatcher's deliveries for replays (version 10): rows, log and seq kept, a first delivery still once per event", async () => {
    const { file, db } = fileAtVersion('dispatch-version-9.db', 'dispatch', DISPATCH_MIGRATIONS.migrations, 9);
    db.prepare(`INSERT INTO dispatch_webhooks (id, url, events, headers, status, secret, created_at, updated_at, business_id, scope) VALUES ('wh_9', 'https://example.com/hooks', '["*"]', '{}', 'active', 'whsec_old', ?, ?, 'biz_9', 'business')`).run(T0, T0);
    const event = createTestEvent('invoice.paid', { business_id: 'biz_9' });
    db.prepare(`INSERT INTO dispatch_events (id, type, payload, correlation_id, test, created_at, business_id, seq) VALUES (?, 'invoice.paid', ?, 'cor_1', 0, ?, 'biz_9', 1)`).run(event.id, JSON.stringify(event), T0);
    db.prepare(`INSERT INTO dispatch_deliveries (seq, id, event_id, webhook_id, event_type, correlation_id, status, attempt_count, automatic_attempt_count, test, created_at, updated_at)
      VALUES (7, 'dlv_9', ?, 'wh_9', 'invoice.paid', 'cor_1', 'delivered', 1, 1, 0, ?, ?)`).run(event.id, T0, T0);
    db.prepare(`INSERT INTO dispatch_attempts (id, delivery_id, webhook_id, url, event_id, event_type, attempt_number, attempted_at, response_status, response_time_ms, correlation_id, response_body_truncated, manual, test)
      VALUES ('att_9', 'dlv_9', 'wh_9', 'https://example.com/hooks', ?, 'invoice.paid', 1, ?, 204, 5, 'cor_1', 0, 0, 0)`).run(event.id, T0);
    db.close();

    const clock = new FakeClock(T0 + 60_000);
    const dispatcher = new Dispatcher({ database: file, clock: clock.now, logger: false });
    expect(await dispatcher.deliveries.get('dlv_9')).toMatchObject({ status: 'delivered', replay: false, attempts: [{ id: 'att_9', response_status: 204 }] });
    expect(await dispatcher.webhooks.replay('wh_9', { from: T0 })).toMatchObject({ queued: 1 });
    await dispatcher.close();
    expect(read(file, 'SELECT seq, id, replay FROM dispatch_deliveries ORDER BY seq')).toEqual([
      { seq: 7, id: 'dlv_9', replay: 0 },
      { seq: 8, id: expect.stringMatching(/^dlv_/), replay: 1 },
    ]);
    expect(read(file, 'PRAGMA foreign_key_check')).toEqual([]);
    const after = new BetterSqlite3(file);
    expect(() => after.prepare(`INSERT INTO dispatch_deliveries (id, event_id, webhook_id, event_type, correlation_id, status, test, created_at, updated_at) VALUES ('dlv_again', ?, 'wh_9', 'invoice.paid', 'cor_1', 'retrying', 0, 0, 0)`).run(event.id)).toThrow(/UNIQUE/);
    after.close();
    expect(read(file, "SELECT MAX(version) AS version FROM acct_webhook_migrations WHERE component = 'dispatch'")).toEqual([{ version: 10 }]);
  });

  it('refuse a file a newer version migrated, when the store is created', () => {
    for (const [component, open] of [
      ['idempotency', (file: string) => sqliteStore(file)],
      ['dispatch', (file: string) => sqliteDispatchStore(file)],
    ] as const) {
      const file = join(tempDir(), `${component}.db`);
      void open(file).close();
      const db = new BetterSqlite3(file);
      db.prepare('INSERT INTO acct_webhook_migrations (component, version) VALUES (?, 99)').run(component);
      db.close();
      expect(() => open(file)).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: expect.objectContaining({ option: 'database' }) }));
    }
  });
});
