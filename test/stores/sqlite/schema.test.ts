import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { DISPATCH_MIGRATIONS as POSTGRES_DISPATCH } from '../../../src/stores/postgres/dispatch-migrations.js';
import { STORE_MIGRATIONS as POSTGRES_STORE } from '../../../src/stores/postgres/store-migrations.js';
import { DISPATCH_MIGRATIONS as SQLITE_DISPATCH } from '../../../src/stores/sqlite/dispatch-migrations.js';
import { STORE_MIGRATIONS as SQLITE_STORE } from '../../../src/stores/sqlite/store-migrations.js';
import { sqliteDispatchStore, sqliteStore } from '../../../src/stores/sqlite/index.js';
import { DESCRIBED_TABLES, expectedColumns, schemaDifferences } from '../../helpers/schema.js';

const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-schema-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file with both stores' tables, migrated to the latest versions. */
async function migratedFile(): Promise<Database.Database> {
  const file = join(dir, `both-${Math.random().toString(36).slice(2)}.db`);
  const stores = [sqliteStore(file), sqliteDispatchStore(file)];
  await Promise.all(stores.map((store) => store.ready()));
  await Promise.all(stores.map((store) => store.close()));
  return new Database(file, { readonly: true });
}

describe('the SQLite schema after migrating', () => {
  it.each(DESCRIBED_TABLES.map((described) => [described.table, described] as const))('%s: exactly the columns of its field list, each of its kind\'s type', async (table, described) => {
    const db = await migratedFile();
    const columns = db.prepare<[string], { name: string; type: string }>('SELECT name, type FROM pragma_table_info(?)').all(table);
    db.close();
    expect(columns.length).toBeGreaterThan(0);
    expect(schemaDifferences(Object.fromEntries(columns.map((column) => [column.name, column.type])), expectedColumns(described, 'sqlite'))).toEqual([]);
  });

  it('keeps every table of the package STRICT', async () => {
    const db = await migratedFile();
    const tables = db.prepare<[], { name: string; strict: number }>("SELECT name, strict FROM pragma_table_list WHERE schema = 'main' AND name NOT LIKE 'sqlite_%' ORDER BY name").all();
    db.close();
    expect(tables.map((table) => table.name)).toEqual([
      'acct_webhook_catch_up',
      'acct_webhook_events',
      'acct_webhook_inbox',
      'acct_webhook_migrations',
      'acct_webhook_object_versions',
      'acct_webhook_quarantine',
      'dispatch_attempts',
      'dispatch_deliveries',
      'dispatch_events',
      'dispatch_schema_migrations',
      'dispatch_skipped',
      'dispatch_webhooks',
    ]);
    expect(tables.filter((table) => table.strict !== 1).map((table) => table.name)).toEqual([]);
  });

  it("refuses an attempt's number used twice for one delivery, as PostgreSQL does", async () => {
    const db = await migratedFile();
    const unique = db
      .prepare<[], { name: string }>("SELECT name FROM pragma_index_list('dispatch_attempts') WHERE \"unique\" = 1")
      .all()
      .map((index) => db.prepare<[string], { name: string }>('SELECT name FROM pragma_index_info(?) ORDER BY seqno').all(index.name).map((column) => column.name));
    db.close();
    expect(unique).toContainEqual(['delivery_id', 'attempt_number']);
  });
});

describe('the migrations', () => {
  it('have the same numbering per component on SQLite and PostgreSQL', () => {
    expect(SQLITE_DISPATCH.migrations.length).toBe(POSTGRES_DISPATCH.migrations.length);
    expect(SQLITE_STORE.migrations.length).toBe(POSTGRES_STORE.migrations.length);
    expect([SQLITE_DISPATCH.migrations.length, SQLITE_STORE.migrations.length]).toEqual([10, 6]);
  });
});
