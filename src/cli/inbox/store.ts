import type { Command } from 'commander';
import { inboxApi, type Inbox } from '../../receiver/inbox.js';
import type { IdempotencyStore } from '../../ports/idempotency-store.js';
import { CliError } from '../errors.js';
import { checkSqliteFile } from '../dispatch-database.js';

/** The options of `inbox` itself, given before or after the subcommand. */
export interface InboxGroupOptions {
  db: string;
  pg?: string;
  schema?: string;
}

/** A table every receiver store has; its absence means some other SQLite file. */
const RECEIVER_TABLE = 'acct_webhook_events';

/**
 * The store `--db` or `--pg` names. A SQLite file must exist and be a receiver's (a typo is an
 * error, not a new empty database); a PostgreSQL store is migrated like the receiver would.
 */
export async function openReceiverStore(options: InboxGroupOptions): Promise<IdempotencyStore> {
  if (options.pg !== undefined) {
    const { postgresStore } = await import('../../stores/postgres/idempotency-store.js');
    const store = postgresStore(options.pg, options.schema === undefined ? {} : { schema: options.schema });
    await store.ready();
    return store;
  }
  if (options.schema !== undefined) throw new CliError('INVALID_OPTION', '--schema goes with --pg (a PostgreSQL store)', { option: '--schema' });
  await checkSqliteFile(options.db, RECEIVER_TABLE, "a receiver's");
  const { sqliteStore } = await import('../../stores/sqlite/idempotency-store.js');
  return sqliteStore(options.db);
}

/** Runs `work` with the inbox of the store the command names, and always closes the store. */
export async function withInbox<T>(command: Command, work: (inbox: Inbox) => Promise<T>): Promise<T> {
  const store = await openReceiverStore(command.optsWithGlobals<InboxGroupOptions>());
  try {
    return await work(inboxApi(store, Date.now, undefined));
  } finally {
    await store.close();
  }
}
