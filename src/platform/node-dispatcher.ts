import { DispatcherCore } from '../dispatcher/dispatcher.js';
import type { DispatcherOptions } from '../dispatcher/options.js';
import type { DispatchStore } from '../ports/dispatch-store.js';
import { sqliteDispatchStore } from '../stores/sqlite/dispatch-store.js';

/** The dispatcher's store when none is given: `sqliteDispatchStore(database)` (the dispatcher names the file). */
export function openDefaultDispatchStore(database: string): DispatchStore {
  return sqliteDispatchStore(database);
}

/**
 * The platform's sending side: registrations, signing, a 30 s timeout, the 7-attempt schedule
 * kept in a database, and the delivery log.
 *
 * @example
 * const dispatcher = new Dispatcher({ database: './dispatch.db' }); // or { store: postgresDispatchStore(url) }
 * const { id, secret } = await dispatcher.webhooks.create({ url: 'https://example.com/webhooks', events: ['invoice.*'] });
 * await dispatcher.start();
 * await dispatcher.emit('invoice.paid', invoice, { business_id: 'biz_…', previous_attributes: { status: 'sent' } });
 * // …
 * await dispatcher.close();
 */
export class Dispatcher extends DispatcherCore {
  /**
   * @throws ConfigurationError for any unusable option, a SQLite file that cannot be opened or a
   *   missing better-sqlite3 (for `database`) — here, never later
   */
  constructor(options: DispatcherOptions = {}) {
    super(options, openDefaultDispatchStore);
  }
}
