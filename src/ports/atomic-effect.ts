import type { AtomicEffect } from './sqlite-database.js';

/**
 * The part of a pg `PoolClient` an atomic effect on PostgreSQL gets: `query`, on the connection
 * that holds the transaction of the completion mark. Structural, so the package's types do not
 * depend on `@types/pg`.
 */
export interface PostgresAtomicClient {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/**
 * A handler's own write on PostgreSQL that must commit together with the completion mark: it
 * runs inside the store's transaction, on one connection of the store's pool, and may await its
 * statements. Name the parameter's type so that TypeScript picks this form of `atomic`:
 *
 * @example
 * atomic(async (client: PostgresAtomicClient) => {
 *   await client.query('UPDATE invoices SET paid = true WHERE id = $1', [event.data.object.id]);
 * });
 */
export type PostgresAtomicEffect = (client: PostgresAtomicClient) => Promise<unknown> | void;

/** Any store's atomic effect, as the receiver keeps it: each store calls the form it offers. */
export type StoreAtomicEffect = AtomicEffect | PostgresAtomicEffect;

/**
 * `context.atomic`: one concept, typed per backend. With `sqliteStore` the effect gets the
 * store's database and runs synchronously (`(db) => …`, the default form); with `postgresStore`
 * it gets the transaction's client and may be async (`async (client: PostgresAtomicClient) => …`).
 */
export interface Atomic {
  (effect: AtomicEffect): void;
  (effect: PostgresAtomicEffect): void;
}
