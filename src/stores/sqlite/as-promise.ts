/**
 * Runs synchronous better-sqlite3 work behind the stores' async interfaces (which are async so
 * that PostgreSQL fits the same shape): the result resolves, a throw becomes a rejection.
 */
export function asPromise<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}
