import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../helpers/postgres.js';
import { ChildScript } from './child-process.js';

const fixture = resolve(import.meta.dirname, '..', 'fixtures', 'postgres-migrate-process.mjs');
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
      { component: 'idempotency', version: 1 },
      { component: 'idempotency', version: 2 },
      { component: 'idempotency', version: 3 },
      { component: 'idempotency', version: 4 },
    ]);
    const tables = await database.pool.query('SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename', [schema]);
    expect(tables.rows.map((row: { tablename: string }) => row.tablename)).toEqual([
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
  }, 30_000);
});
