import type { PostgresPool, PostgresPoolClient } from './pool.js';

/**
 * Runs `work` in one transaction on one connection: COMMIT when it resolves, ROLLBACK when it
 * throws. A connection whose ROLLBACK failed too is destroyed rather than returned to the pool
 * in an unknown state. `begin` is sent as it is (the simple protocol): a fixed statement without
 * parameters may follow the BEGIN there, to run in the same round trip.
 */
export async function withTransaction<T>(pool: PostgresPool, work: (client: PostgresPoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await work(client);
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
