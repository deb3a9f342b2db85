import type { IdempotencyStore } from '../ports/idempotency-store.js';
import type { DispatchStore } from '../ports/dispatch-store.js';
import { sqliteDispatchStore } from '../sqlite/dispatch-store.js';
import { DEFAULT_STORE_FILE, sqliteStore } from '../sqlite/idempotency-store.js';

/*
 * The one place that decides which backend a receiver or a dispatcher given no store gets: the
 * entry points own this choice, the cores only call what they are handed. Both defaults are
 * SQLite files in the working directory (docs/idempotency.md, docs/dispatcher.md); a store given
 * as an option is used instead, and nothing here is opened.
 */

/** The receiver's store when none is given: `sqliteStore(database ?? './webhook-events.db')`. */
export function openDefaultReceiverStore(database: string | undefined): IdempotencyStore {
  return sqliteStore(database ?? DEFAULT_STORE_FILE);
}

/** The dispatcher's store when none is given: `sqliteDispatchStore(database)` (the dispatcher names the file). */
export function openDefaultDispatchStore(database: string): DispatchStore {
  return sqliteDispatchStore(database);
}
