import { StoreUnavailableError } from '../../kernel/store-unavailable.js';
import { checkOut } from './check-out.js';
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
 *
 * While the connection is checked out it has an 'error' listener of ours (see {@link checkOut}):
 * the query running then rejects with the error, and a connection that saw one is destroyed.
 * A transaction that failed because its connection did rejects with a StoreUnavailableError
 * (`STORE_UNAVAILABLE`, the driver's error as `cause`); any other failure as it is.
 */
export async function withTransaction<T>(
  pool: PostgresPool,
  work: (client: PostgresPoolClient, begun: PostgresQueryResult[]) => Promise<T | Committed<T>>,
  begin = 'BEGIN',
): Promise<T> {
  let broken: Error | undefined;
  const onError = (error: Error): void => {
    broken ??= error;
  };
  const client = await checkOut(pool, onError);
  /** Gives the connection back (destroyed, when `destroy` or it broke); the listener stays on until the pool's is back. */
  const release = (destroy: boolean): void => {
    client.release(destroy || broken !== undefined);
    client.removeListener?.('error', onError);
  };
  try {
    // pg answers one result for one statement, an array for several.
    const answered = (await client.query(begin)) as PostgresQueryResult | PostgresQueryResult[];
    const result = await work(client, Array.isArray(answered) ? answered.slice(1) : []);
    if (result instanceof Committed) {
      release(false);
      return result.value;
    }
    await client.query('COMMIT');
    release(false);
    return result;
  } catch (error) {
    const rolledBack =
      broken === undefined &&
      (await client.query('ROLLBACK').then(
        () => true,
        () => false,
      ));
    release(!rolledBack);
    throw broken !== undefined || isConnectionFailure(error) ? new StoreUnavailableError(error) : error;
  }
}

/**
 * Whether `error` says the connection failed rather than the statement: SQLSTATE class 08
 * (connection exception), 57P01–57P05 (the server terminated the session: admin command, crash,
 * shutdown, idle timeouts), or pg's and Node's own words for a socket that ended.
 */
export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (/^08/.test(code) || /^57P0[1-5]$/.test(code) || ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT'].includes(code))) return true;
  return /Connection terminated|Client has encountered a connection error|not queryable/.test(error.message);
}
