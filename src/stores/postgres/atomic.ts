import type { PostgresAtomicClient, PostgresAtomicEffect, StoreAtomicEffect } from '../../ports/atomic-effect.js';
import { AtomicEffectTimeoutError } from './errors.js';
import type { PostgresPool, PostgresPoolClient } from './pool.js';
import { withTransaction } from './transaction.js';

/**
 * Marks an event done and applies the handlers' atomic effects in one transaction on one
 * connection of the store's pool: `markDone` runs first (false: the claim was lost, nothing is
 * applied), then each effect with the transaction's client, awaited in order. A throwing effect
 * rolls everything back. With a budget, the transaction must finish within it: each statement
 * gets it as `statement_timeout` (a query that waits on a lock is cancelled by the server), and
 * an effect still running at the deadline fails the transaction; no budget left means nothing runs.
 */
export async function completeWithEffects(
  pool: PostgresPool,
  effects: readonly StoreAtomicEffect[],
  budgetMs: number | undefined,
  markDone: (client: PostgresPoolClient) => Promise<boolean>,
): Promise<boolean> {
  if (budgetMs !== undefined && budgetMs < 1) throw new AtomicEffectTimeoutError(budgetMs);
  const deadline = budgetMs === undefined ? undefined : performance.now() + budgetMs;
  return withTransaction(pool, async (client) => {
    if (budgetMs !== undefined) await client.query(`SET LOCAL statement_timeout = ${Math.ceil(budgetMs)}`);
    if (!(await markDone(client))) return false;
    // The effects get a client that refuses statements once their part is over, so that an effect
    // left running past the deadline (or a statement it did not await) can never run after the
    // ROLLBACK, outside the transaction.
    let open = true;
    const guarded: PostgresAtomicClient = {
      query: (text, values) => (open ? client.query(text, values) : Promise.reject(new Error('The transaction of the atomic effects is over'))),
    };
    try {
      for (const effect of effects) {
        const applied = Promise.resolve((effect as PostgresAtomicEffect)(guarded));
        await (deadline === undefined ? applied : withinDeadline(applied, deadline, budgetMs!));
      }
    } finally {
      open = false;
    }
    return true;
  });
}

function withinDeadline<T>(work: Promise<T>, deadline: number, budgetMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new AtomicEffectTimeoutError(budgetMs)), Math.max(0, deadline - performance.now()));
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
