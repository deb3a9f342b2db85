import type { DispatchStore } from '../ports/dispatch-store.js';
import { sqliteDispatchStore } from '../stores/sqlite/dispatch-store.js';

/*
 * The dispatcher's default backend (src/platform/node-stores.ts has the receiver's): a SQLite file
 * the dispatcher names (docs/dispatcher.md); a store given as an option is used instead.
 */

/** The dispatcher's store when none is given: `sqliteDispatchStore(database)` (the dispatcher names the file). */
export function openDefaultDispatchStore(database: string): DispatchStore {
  return sqliteDispatchStore(database);
}
