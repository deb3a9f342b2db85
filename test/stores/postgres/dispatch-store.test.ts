import { describe, expect, it } from 'vitest';
import { dispatchStatements } from '../../../src/stores/postgres/dispatch-statements.js';
import { postgresDispatchStore } from '../../../src/stores/postgres/index.js';
import { statementPreparer } from '../../../src/stores/postgres/statement.js';
import { webhook } from '../../../src/testing/dispatch-store-contract.js';
import { closeWhenFinished, describeDispatchStore, describeFairClaims, type DispatchStoreFixture } from '../../helpers/contracts.js';
import { useTestDatabase } from '../../helpers/postgres.js';

describe('PostgreSQL', () => {
  const database = useTestDatabase({ poolSize: 4 });
  // A schema of its own per test; every store `open()` returns has its own pool (its own
  // connections, like another process), on the same schema.
  const fixture = (preparedStatements = true): DispatchStoreFixture => {
    const schema = database.newSchema();
    return {
      open: () => Promise.resolve(closeWhenFinished(postgresDispatchStore(database.url, { schema, poolSize: 4, preparedStatements }))),
      async countDeliveries(status) {
        const result = await database.pool.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM "${schema}".dispatch_deliveries WHERE status = $1`, [status]);
        return result.rows[0]!.n;
      },
    };
  };
  describeDispatchStore('postgresDispatchStore', () => fixture());
  describeFairClaims('postgresDispatchStore', () => fixture());
  // Behind a pooler that cannot keep prepared statements, a claim's and a record batch's COMMIT
  // are round trips of their own (runAndCommit): the same contract.
  describeDispatchStore('postgresDispatchStore, preparedStatements: false', () => fixture(false));
});

describe('PostgreSQL: a claim on a table without statistics', () => {
  const database = useTestDatabase({ poolSize: 2 });

  // A backlog just queued (autovacuum has not analysed it yet): the claim's count of attempts in
  // flight must read the leases, not every pending delivery (dispatch-statements.ts, claimSubjects).
  it('counts the attempts in flight from the leased deliveries alone', async () => {
    const schema = database.newSchema();
    const store = postgresDispatchStore(database.pool, { schema });
    await store.insertWebhook(webhook('wh_backlog'));
    await store.close();
    const table = `"${schema}".dispatch_deliveries`;
    await database.pool.query(`INSERT INTO "${schema}".dispatch_events (id, type, payload, correlation_id, test, created_at)
      SELECT 'evt_' || n, 'invoice.paid', '{}', 'cor_' || n, false, 0 FROM generate_series(1, 3000) n`);
    await database.pool.query(`INSERT INTO ${table} (id, event_id, webhook_id, event_type, correlation_id, status, webhook_active, next_attempt_at, test, created_at, updated_at)
      SELECT 'dlv_' || n, 'evt_' || n, 'wh_backlog', 'invoice.paid', 'cor_' || n, 'retrying', true, 0, false, 0, 0 FROM generate_series(1, 3000) n`);
    await database.pool.query(`UPDATE ${table} SET lease_owner = 'worker', lease_until = 60000, next_attempt_at = 60000 WHERE seq <= 7`);

    const sql = dispatchStatements(`"${schema}"`, statementPreparer(false), 'unused').claimSubjects(1_000);
    const { rows } = await database.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`);
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    expect(plan).toMatch(/Index (Only )?Scan.* on dispatch_deliveries_leased|Bitmap Index Scan on dispatch_deliveries_leased/);
    expect(plan).not.toMatch(/Seq Scan on dispatch_deliveries|dispatch_deliveries_webhook/);
    expect((await database.pool.query(sql)).rows).toEqual([expect.objectContaining({ id: 'wh_backlog', in_flight: 7 })]);
  });
});
