import { beforeAll, describe, expect, it } from 'vitest';
import { postgresDispatchStore, postgresStore } from '../../../src/stores/postgres/index.js';
import { useTestDatabase } from '../../helpers/postgres.js';
import { DESCRIBED_TABLES, expectedColumns, schemaDifferences } from '../../helpers/schema.js';

describe('the PostgreSQL schema after migrating', () => {
  const database = useTestDatabase();
  const schema = database.newSchema();

  beforeAll(async () => {
    const stores = [postgresStore(database.pool, { schema }), postgresDispatchStore(database.pool, { schema })];
    await Promise.all(stores.map((store) => store.ready()));
    await Promise.all(stores.map((store) => store.close()));
  });

  it.each(DESCRIBED_TABLES.map((described) => [described.table, described] as const))('%s: exactly the columns of its field list, each of its kind\'s type', async (table, described) => {
    const { rows } = await database.pool.query<{ column_name: string; data_type: string }>(
      'SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
      [schema, table],
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(schemaDifferences(Object.fromEntries(rows.map((row) => [row.column_name, row.data_type])), expectedColumns(described, 'postgres'))).toEqual([]);
  });

  it("refuses an attempt's number used twice for one delivery, as SQLite does", async () => {
    const { rows } = await database.pool.query<{ columns: string[] }>(
      `SELECT array_agg(a.attname ORDER BY k.ordinality)::text[] AS columns
         FROM pg_index i
         JOIN pg_class t ON t.oid = i.indrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
         CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k (attnum, ordinality)
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
        WHERE n.nspname = $1 AND t.relname = 'dispatch_attempts' AND i.indisunique
        GROUP BY i.indexrelid`,
      [schema],
    );
    expect(rows.map((row) => row.columns)).toContainEqual(['delivery_id', 'attempt_number']);
  });

  it('records the same versions per component as SQLite', async () => {
    const { rows } = await database.pool.query(`SELECT component, MAX(version) AS version FROM "${schema}".acct_webhook_migrations GROUP BY component ORDER BY component`);
    expect(rows).toEqual([
      { component: 'dispatch', version: 10 },
      { component: 'idempotency', version: 6 },
    ]);
  });
});
