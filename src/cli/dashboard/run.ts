import { existsSync } from 'node:fs';
import { buildDashboard } from '../../dashboard/dashboard.js';
import { nodeListenerOf, readForm } from '../../dashboard/node.js';
import { storeSideOf } from '../../dashboard/receiver-side.js';
import type { Dispatcher } from '../../platform/node-dispatcher.js';
import type { LogFn, Logger } from '../../logging/logger.js';
import { sqliteStore } from '../../stores/sqlite/idempotency-store.js';
import { sqliteFileHasTable } from '../../stores/sqlite/inspect.js';
import type { IdempotencyStore } from '../../ports/idempotency-store.js';
import type { CommandContext } from '../context.js';
import type { Output } from '../output.js';
import { isSqliteFile, openDispatcher } from '../dispatch-database.js';
import { CliError } from '../errors.js';
import { listenOn, serverUrl } from '../local-receiver/server.js';
import { hostWarning } from './host-warning.js';
import { sandboxDashboardView } from '../../sandbox/dashboard-view.js';
import { TokenGate } from './token-gate.js';

export interface DashboardCommandOptions {
  db?: string;
  eventsDb?: string;
  port: number;
  host: string;
  allowInsecureUrls?: boolean;
}

/** Whether `file` is a sandbox's database (it has the sandbox's state table); a file that is not SQLite is left to openDispatcher's check. */
async function isSandboxDatabase(file: string): Promise<boolean> {
  return existsSync(file) && (await isSqliteFile(file)) && sqliteFileHasTable(file, 'sandbox_state');
}

/** The receiver's table: an events file without it is some other database. */
const EVENTS_TABLE = 'acct_webhook_events';

/** Serves the dashboard until Ctrl-C (or SIGTERM), then closes the server and the databases. */
export async function runDashboard(context: CommandContext, options: DashboardCommandOptions): Promise<void> {
  if (options.db === undefined && options.eventsDb === undefined) {
    throw new CliError('INVALID_OPTION', 'give --db (a dispatcher database), --events-db (a receiver event store) or both', { option: '--db' });
  }
  // First, before anything can fail or listen: it is about what the user asked for.
  const warning = hostWarning(options.host);
  if (warning !== undefined) context.output.note(warning);
  // A sandbox's database: its clock and its API's names, so the pages agree with what the sandbox stamped and returned.
  const sandbox = options.db === undefined || !(await isSandboxDatabase(options.db)) ? undefined : sandboxDashboardView(options.db);
  let dispatcher: Dispatcher | undefined;
  let store: IdempotencyStore | undefined;
  let server;
  try {
    dispatcher = options.db === undefined ? undefined : await openDispatcher(options.db, { allowInsecureUrls: options.allowInsecureUrls === true, ...(sandbox ? { clock: sandbox.clock } : {}) });
    store = options.eventsDb === undefined ? undefined : await openEventStore(options.eventsDb);
    const logger = requestFailureLogger(context.output);
    const core = buildDashboard({ dispatcher, receiver: store && storeSideOf(store), authorize: () => true, basePath: '', logger, clock: sandbox?.clock ?? Date.now, registrationName: sandbox?.registrationName });
    if (sandbox) context.output.note(`${options.db} is a sandbox's database: the pages count by the sandbox's clock (${new Date(sandbox.clock()).toISOString()}) and show the ids and URLs its API returned.`);
    const gate = new TokenGate(nodeListenerOf(core, readForm), (error, request) => core.failed(error, request));
    server = await listenOn(gate.listener, options.port, options.host);
    const url = `${serverUrl(options.host, server.port, '/')}?token=${gate.token}`;
    context.output.line(`Dashboard: ${context.output.style('bold', url)}`);
    context.output.line('  The token works once: the browser that opens it gets a session; anything else gets 401. Ctrl-C to stop.');
    await context.io.stopRequests.wait();
  } finally {
    await server?.close();
    await closeAll(dispatcher, store);
    sandbox?.close();
  }
  context.output.note('Stopped.');
}

/**
 * The dashboard's logger in the terminal: a request that failed unexpectedly is one line on
 * stderr (`error: GET /webhooks failed: SqliteError: …`); the server goes on.
 */
function requestFailureLogger(output: Output): Logger {
  const quiet: LogFn = () => undefined;
  const error: LogFn = (fields: object | string, message?: string) => output.note(`error: ${failureLine(fields, message)}`);
  const logger: Logger = { debug: quiet, info: quiet, warn: quiet, error, child: () => logger };
  return logger;
}

function failureLine(fields: object | string, message: string | undefined): string {
  if (typeof fields === 'string') return fields;
  const { err, method, path } = fields as { err?: unknown; method?: string; path?: string };
  const cause = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  const line = method !== undefined && path !== undefined ? `${method} ${path} failed: ${cause}` : `${message ?? 'failed'}: ${cause}`;
  return line.replace(/\s*\n\s*/g, ' ');
}

async function closeAll(dispatcher: Dispatcher | undefined, store: IdempotencyStore | undefined): Promise<void> {
  await dispatcher?.close();
  await store?.close();
}

/** A receiver's existing SQLite event store; never creates one (a typo must not leave an empty file). */
async function openEventStore(file: string): Promise<IdempotencyStore> {
  if (!existsSync(file)) throw new CliError('UNREADABLE_FILE', `${file} does not exist`, { file });
  if (!(await isSqliteFile(file)) || !sqliteFileHasTable(file, EVENTS_TABLE)) {
    throw new CliError('MALFORMED_INPUT', `${file} is not a receiver's event store (no ${EVENTS_TABLE} table)`, { file });
  }
  return sqliteStore(file);
}
