import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventRecordsOf } from '../../../src/ports/event-records.js';
import { postgresStore } from '../../../src/stores/postgres/index.js';
import { STORE_MIGRATIONS } from '../../../src/stores/postgres/store-migrations.js';
import { DISPATCH_MIGRATIONS } from '../../../src/stores/postgres/dispatch-migrations.js';
import { migrate } from '../../../src/stores/postgres/migrations.js';
import { postgresDispatchStore } from '../../../src/stores/postgres/index.js';
import { expectDeliveriesReadAsBefore, expectInboxRunsAsBefore, expectReceivedReadsAsBefore, T0 as T0_VERSION_5, VERSION_4_WAITING, VERSION_5_DELIVERIES } from '../../helpers/migrated-reads.js';
import { useTestDatabase } from '../../helpers/postgres.js';
import { ChildScript } from './child-process.js';

const fixture = resolve(import.meta.dirname, '../..', 'fixtures', 'postgres-migrate-process.mjs');
const PROCESSES = 4;

describe('the first start of several processes on a fresh schema', () => {
  const database = useTestDatabase({ poolSize: 2 });
  let children: ChildScript[] = [];
  afterEach(async () => {
    await Promise.all(children.map((child) => child.stop()));
  });

  it(`${PROCESSES} processes released at the same instant migrate the store and the dispatcher once, without error`, async () => {
    const schema = database.newSchema();
    children = Array.from({ length: PROCESSES }, () => ChildScript.start(fixture, [database.url, schema]));
    await Promise.all(children.map((child) => child.line((line) => line.loaded === true, 'the fixture to load')));
    for (const child of children) child.send('go');

    expect(await Promise.all(children.map((child) => child.exited))).toEqual(Array(PROCESSES).fill(0));
    expect(children.map((child) => child.lines.at(-1))).toEqual(Array(PROCESSES).fill({ migrated: true }));
    const applied = await database.pool.query(`SELECT component, version FROM "${schema}".acct_webhook_migrations ORDER BY component, version`);
    expect(applied.rows).toEqual([
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
    const tables = await database.pool.query('SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename', [schema]);
    expect(tables.rows.map((row: { tablename: string }) => row.tablename)).toEqual([
      'acct_webhook_catch_up',
      'acct_webhook_events',
      'acct_webhook_inbox',
      'acct_webhook_migrations',
      'acct_webhook_object_versions',
      'acct_webhook_quarantine',
      'dispatch_attempts',
      'dispatch_deliveries',
      'dispatch_events',
      'dispatch_skipped',
      'dispatch_webhooks',
    ]);
  });
});

describe("a version-3 store's schema", () => {
  const database = useTestDatabase({ poolSize: 2 });

  it("gets the dashboard's indexes (version 4); its rows read as before, through them", async () => {
    const schema = database.newSchema();
    const T0 = Date.UTC(2026, 10, 1, 9, 0, 0);
    const client = await database.pool.connect();
    try {
      await client.query(`CREATE SCHEMA "${schema}"`);
      await client.query(`SET search_path TO "${schema}"`);
      await client.query('CREATE TABLE acct_webhook_migrations (component text NOT NULL, version integer NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (component, version))');
      for (const [index, sql] of STORE_MIGRATIONS.migrations.slice(0, 3).entries()) {
        await client.query(sql);
        await client.query("INSERT INTO acct_webhook_migrations (component, version) VALUES ('idempotency', $1)", [index + 1]);
      }
      await client.query("INSERT INTO acct_webhook_events VALUES ('evt_done', 'completed', 'tok', 0, 'invoice.paid', $1, $2, 1), ('evt_failed', 'processing', 'tok2', $3, 'invoice.paid', $4, NULL, 1)", [T0, T0 + 5, T0 + 60_000, T0 + 1]);
      const headers = '{"headers":{},"secret_index":0,"signature_scheme":"v1"}';
      await client.query(
        `INSERT INTO acct_webhook_inbox (event_id, event_type, status, raw_body, headers, received_at, event_created, next_attempt_at, stale, completed_at) VALUES
          ('evt_in_done', 'invoice.paid', 'done', '\\x7b7d', $1, $2, $2, $2, false, $2),
          ('evt_in_stale', 'customer.created', 'done', '\\x7b7d', $1, $3, $2, $2, true, $2),
          ('evt_in_dead', 'invoice.paid', 'dead', '\\x7b7d', $1, $4, $2, $2, false, NULL)`,
        [headers, T0 + 2, T0 + 3, T0 + 4],
      );
      await client.query("INSERT INTO acct_webhook_quarantine VALUES ('qev_1', 'evt_bad', 'invalid_payload', 'evt_bad', 'invoice.paid', 'VALIDATION_ERROR', 'amount', '\\x7b7d', $1, $1, 1)", [T0 + 5]);
    } finally {
      client.release();
    }

    const store = postgresStore(database.pool, { schema });
    await store.ready();
    await expectReceivedReadsAsBefore(store);
    expect((await eventRecordsOf(store)!.list({ limit: 10, offset: 0 })).map((record) => record.event_id)).toEqual(['evt_failed', 'evt_done']);
    await store.close();
    const versions = await database.pool.query(`SELECT MAX(version) AS version FROM "${schema}".acct_webhook_migrations WHERE component = 'idempotency'`);
    expect(versions.rows).toEqual([{ version: STORE_MIGRATIONS.migrations.length }]);
    // Version 5 dropped the type index again (its column is in the received and status indexes).
    const indexes = await database.pool.query<{ indexname: string }>(
      "SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname IN ('acct_webhook_events_state', 'acct_webhook_inbox_received', 'acct_webhook_inbox_status', 'acct_webhook_inbox_type', 'acct_webhook_quarantine_received') ORDER BY indexname",
      [schema],
    );
    expect(indexes.rows.map((row) => row.indexname)).toEqual(['acct_webhook_events_state', 'acct_webhook_inbox_received', 'acct_webhook_inbox_status', 'acct_webhook_quarantine_received']);
  });
});

describe("a version-4 store's schema", () => {
  const database = useTestDatabase({ poolSize: 2 });

  it("gets the inbox's leaner indexes (version 5); its rows read, run and prune as before", async () => {
    const schema = database.newSchema();
    await migrate(database.pool, { name: schema, quoted: `"${schema}"` }, { ...STORE_MIGRATIONS, migrations: STORE_MIGRATIONS.migrations.slice(0, 4) });
    const inbox = `"${schema}".acct_webhook_inbox`;
    await database.pool.query(`INSERT INTO "${schema}".acct_webhook_events VALUES ('evt_done', 'completed', 'tok', 0, 'invoice.paid', $1, $2, 1), ('evt_failed', 'processing', 'tok2', $3, 'invoice.paid', $4, NULL, 1)`, [
      T0_VERSION_5,
      T0_VERSION_5 + 5,
      T0_VERSION_5 + 60_000,
      T0_VERSION_5 + 1,
    ]);
    const headers = '{"headers":{},"secret_index":0,"signature_scheme":"v1"}';
    const waiting = VERSION_4_WAITING;
    await database.pool.query(
      `INSERT INTO ${inbox} (event_id, event_type, status, raw_body, headers, received_at, event_created, next_attempt_at, stale, completed_at, token, lease_until) VALUES
        ('evt_in_done', 'invoice.paid', 'done', '\\x7b7d', $1, $2, $2, $2, false, $6, NULL, 0),
        ('evt_in_stale', 'customer.created', 'done', '\\x7b7d', $1, $3, $2, $2, true, $6, NULL, 0),
        ('evt_in_dead', 'invoice.paid', 'dead', '\\x7b7d', $1, $4, $2, $2, false, NULL, NULL, 0),
        ($7, $8, 'pending', '\\x7b7d', $1, $5, $2, $5, false, NULL, NULL, 0),
        ($9, $8, 'processing', '\\x7b7d', $1, $5, $2, $5, false, NULL, 'tok_gone', $2)`,
      [headers, T0_VERSION_5 + 2, T0_VERSION_5 + 3, T0_VERSION_5 + 4, waiting.receivedAt, T0_VERSION_5 + 10, waiting.pending, waiting.type, waiting.expired],
    );
    await database.pool.query(`INSERT INTO "${schema}".acct_webhook_quarantine VALUES ('qev_1', 'evt_bad', 'invalid_payload', 'evt_bad', 'invoice.paid', 'VALIDATION_ERROR', 'amount', '\\x7b7d', $1, $1, 1)`, [T0_VERSION_5 + 5]);

    const store = postgresStore(database.pool, { schema });
    await store.ready();
    await expectReceivedReadsAsBefore(store);
    await expectInboxRunsAsBefore(store, store.retentionMs);
    await store.close();
    const versions = await database.pool.query(`SELECT MAX(version) AS version FROM "${schema}".acct_webhook_migrations WHERE component = 'idempotency'`);
    expect(versions.rows).toEqual([{ version: 6 }]);
    const indexes = await database.pool.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'acct_webhook_inbox' ORDER BY indexname", [schema]);
    expect(indexes.rows.map((row) => row.indexname)).toEqual(['acct_webhook_inbox_due', 'acct_webhook_inbox_object', 'acct_webhook_inbox_pkey', 'acct_webhook_inbox_received', 'acct_webhook_inbox_status']);
  });
});

describe("a version-5 dispatcher's schema", () => {
  const database = useTestDatabase({ poolSize: 2 });

  it("gets the overview's index (version 6); its deliveries count and chart as before, through it", async () => {
    const schema = database.newSchema();
    await migrate(database.pool, { name: schema, quoted: `"${schema}"` }, { ...DISPATCH_MIGRATIONS, migrations: DISPATCH_MIGRATIONS.migrations.slice(0, 5) });
    await database.pool.query(`INSERT INTO "${schema}".dispatch_webhooks (id, url, events, headers, status, secret, created_at, updated_at) VALUES ('wh_1', 'https://example.com/hooks', '["*"]', '{}', 'active', 'whsec_test', $1, $1)`, [T0_VERSION_5]);
    for (const [id, status, at] of VERSION_5_DELIVERIES) {
      await database.pool.query(`INSERT INTO "${schema}".dispatch_events (id, type, payload, correlation_id, test, created_at) VALUES ($1, 'invoice.paid', '{}', 'cor_1', false, $2)`, [`evt_${id}`, at]);
      await database.pool.query(
        `INSERT INTO "${schema}".dispatch_deliveries (id, event_id, webhook_id, event_type, correlation_id, status, webhook_active, test, created_at, updated_at)
          VALUES ($1, $2, 'wh_1', 'invoice.paid', 'cor_1', $3, true, false, $4, $4)`,
        [id, `evt_${id}`, status, at],
      );
    }

    const store = postgresDispatchStore(database.pool, { schema });
    await store.ready();
    await expectDeliveriesReadAsBefore(store);
    await store.close();
    const versions = await database.pool.query(`SELECT MAX(version) AS version FROM "${schema}".acct_webhook_migrations WHERE component = 'dispatch'`);
    expect(versions.rows).toEqual([{ version: 10 }]);
    const indexes = await database.pool.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname IN ('dispatch_deliveries_created', 'dispatch_deliveries_created_status')", [schema]);
    expect(indexes.rows.map((row) => row.indexname)).toEqual(['dispatch_deliveries_created_status']);
  });
});

describe("a version-6 dispatcher's schema", () => {
  const database = useTestDatabase({ poolSize: 2 });

  it("gives its registrations the platform's scheme with HMAC (version 7); a job signs as before", async () => {
    const schema = database.newSchema();
    await migrate(database.pool, { name: schema, quoted: `"${schema}"` }, { ...DISPATCH_MIGRATIONS, migrations: DISPATCH_MIGRATIONS.migrations.slice(0, 6) });
    await database.pool.query(`INSERT INTO "${schema}".dispatch_webhooks (id, url, events, headers, status, secret, created_at, updated_at) VALUES ('wh_6', 'https://example.com/hooks', '["*"]', '{}', 'active', 'whsec_legacy-url_safe', $1, $1)`, [T0_VERSION_5]);
    await database.pool.query(`INSERT INTO "${schema}".dispatch_events (id, type, payload, correlation_id, test, created_at) VALUES ('evt_6', 'invoice.paid', '{}', 'cor_1', false, $1)`, [T0_VERSION_5]);
    await database.pool.query(
      `INSERT INTO "${schema}".dispatch_deliveries (id, event_id, webhook_id, event_type, correlation_id, status, next_attempt_at, webhook_active, test, created_at, updated_at)
        VALUES ('dlv_6', 'evt_6', 'wh_6', 'invoice.paid', 'cor_1', 'retrying', $1, true, false, $1, $1)`,
      [T0_VERSION_5],
    );

    const store = postgresDispatchStore(database.pool, { schema });
    await store.ready();
    expect(await store.getWebhook('wh_6')).toMatchObject({ scheme: 'svc', algorithm: 'hmac-sha256', public_key: null, previous_secret: null, previous_secret_expires_at: null, secret: 'whsec_legacy-url_safe' });
    expect((await store.loadJob('dlv_6'))?.webhook).toEqual({ id: 'wh_6', url: 'https://example.com/hooks', secret: 'whsec_legacy-url_safe', headers: {}, scheme: 'svc', previous_secret: null, previous_secret_expires_at: null });
    // Version 9: a registration from before owners receives every business's events, as it did.
    expect((await store.webhooksOfBusiness('biz_any')).map((webhook) => [webhook.id, webhook.scope, webhook.business_id])).toEqual([['wh_6', 'all', null]]);
    await store.close();
    const versions = await database.pool.query(`SELECT MAX(version) AS version FROM "${schema}".acct_webhook_migrations WHERE component = 'dispatch'`);
    expect(versions.rows).toEqual([{ version: 10 }]);
  }, 30_000);
});

describe("a version-7 dispatcher's schema", () => {
  const database = useTestDatabase({ poolSize: 2 });

  it('numbers the events kept in the order they were created (version 8): the feed lists them, and a new one comes after', async () => {
    const schema = database.newSchema();
    await migrate(database.pool, { name: schema, quoted: `"${schema}"` }, { ...DISPATCH_MIGRATIONS, migrations: DISPATCH_MIGRATIONS.migrations.slice(0, 7) });
    for (const [id, at, business] of [['evt_old_2', T0_VERSION_5 + 2, 'biz_7'], ['evt_other', T0_VERSION_5 + 1, 'biz_8'], ['evt_old_1', T0_VERSION_5, 'biz_7']] as const) {
      await database.pool.query(`INSERT INTO "${schema}".dispatch_events (id, type, payload, correlation_id, test, created_at, business_id) VALUES ($1, 'invoice.paid', $2, 'cor_1', false, $3, $4)`, [id, `{"id":"${id}"}`, at, business]);
    }

    const store = postgresDispatchStore(database.pool, { schema });
    await store.ready();
    expect((await store.listEvents!({ business_id: 'biz_7', limit: 10 })).map((event) => [event.id, event.payload])).toEqual([
      ['evt_old_1', '{"id":"evt_old_1"}'],
      ['evt_old_2', '{"id":"evt_old_2"}'],
    ]);
    const payload = JSON.stringify({ id: 'evt_new', business_id: 'biz_7' });
    await store.insertEvent({ id: 'evt_new', type: 'invoice.paid', payload, correlation_id: 'cor_2', test: false, created_at: T0_VERSION_5 - 5 }, []);
    expect((await store.listEvents!({ business_id: 'biz_7', limit: 10 })).map((row) => row.id)).toEqual(['evt_old_1', 'evt_old_2', 'evt_new']);
    await store.close();
    const versions = await database.pool.query(`SELECT MAX(version) AS version FROM "${schema}".acct_webhook_migrations WHERE component = 'dispatch'`);
    expect(versions.rows).toEqual([{ version: 10 }]);
  }, 30_000);
});
