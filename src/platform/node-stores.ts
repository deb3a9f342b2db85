import type { IdempotencyStore } from '../ports/idempotency-store.js';
import { DEFAULT_STORE_FILE, sqliteStore } from '../stores/sqlite/idempotency-store.js';

/*
 * Where the entry points decide which backend a receiver or a dispatcher given no store gets:
 * here for the receiver, src/platform/node-dispatch-store.ts for the dispatcher (two files, so that
 * importing the receiver does not load the SQLite dispatch store's code). Both defaults are
 * SQLite files in the working directory (docs/idempotency.md, docs/dispatcher.md); a store given
 * as an option is used instead, and nothing here is opened.
 */

/** The receiver's store when none is given: `sqliteStore(database ?? './webhook-events.db')`. */
export function openDefaultReceiverStore(database: string | undefined): IdempotencyStore {
  return sqliteStore(database ?? DEFAULT_STORE_FILE);
}
