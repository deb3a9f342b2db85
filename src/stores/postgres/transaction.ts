import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from './pool.js';

/** What `work` answers when its last query ended with the COMMIT itself (in the same round trip). */
export class Committed<T> {
  constructor(readonly value: T) {}
}

/**
 * Runs `work` in one transaction on one connection: COMMIT when it resolves, ROLLBACK when it
 * throws. A connection whose ROLLBACK failed too is destroyed rather than returned to the pool
 * in an unknown state. `begin` is sent as it is (the simple protocol): statements may follow the
 * BEGIN there, to run in the same round trip; `work` gets their results (the BEGIN's left out).
 * `work` may end its last query with the COMMIT (the simple protocol again) and answer
 * {@link Committed}: no COMMIT is sent then. Should that query fail, the ROLLBACK ends the
 * transaction as usual.
 */
export async function withTransaction<T>(
  pool: PostgresPool,
  work: (client: PostgresPoolClient, begun: PostgresQueryResult[]) => Promise<T | Committed<T>>,
  begin = 'BEGIN',
): Promise<T> {
  const client = await pool.connect();
  try {
    // pg answers one result for one statement, an array for several.
    const answered = (await client.query(begin)) as PostgresQueryResult | PostgresQueryResult[];
    const result = await work(client, Array.isArray(answered) ? answered.slice(1) : []);
    if (result instanceof Committed) {
      client.release();
      return result.value;
    }
    await client.query('COMMIT');
    client.release();
    return result;
  } catch (error) {
    const rolledBack = await client.query('ROLLBACK').then(
      () => true,
      () => false,
    );
    client.release(!rolledBack);
    throw error;
  }
}
