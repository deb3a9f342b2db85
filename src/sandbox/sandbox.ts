import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Dispatcher } from '../platform/node-dispatcher.js';
import type { AttemptReport } from '../dispatcher/attempt-report.js';
import { DEFAULT_MAX_IN_FLIGHT_PER_WEBHOOK } from '../dispatcher/dispatcher-defaults.js';
import { contained } from '../kernel/contained.js';
import { answerClientErrors } from '../http/client-error.js';
import { ConfigurationError } from '../kernel/errors.js';
import { resolveWithSystem } from '../dispatcher/url-guard.js';
import { resolveLogger } from '../logging/logger.js';
import { openConnection } from '../stores/sqlite/open-connection.js';
import type { SavedSandboxClock } from './dashboard-view.js';
import { sqliteDispatchStore } from '../stores/sqlite/dispatch-store.js';
import { SandboxClock, parseDuration } from './clock.js';
import { openAccounts, type OpenedAccount, type SandboxTestAccount } from './accounts.js';
import type { SandboxContext } from './context.js';
import { adoptUnowned, migrateSandbox, SandboxState } from './database.js';
import { SandboxEmitter } from './emitter.js';
import { FaultProxy } from './fault-proxy.js';
import { FaultLog } from './faults.js';
import { ForwardLog } from './forwards.js';
import { PLAN_LIMITS_PER_MINUTE, WEBHOOK_RETRY_LIMIT, WindowCounter } from './http/rate-limit.js';
import { apiHandler } from './http/server.js';
import { ObjectStore } from './objects.js';
import { parseSandboxOptions, SEEDED_START, type SandboxOptions, type ValidSandboxOptions } from './options.js';
import { DeliveryPump } from './pump.js';
import { Reorderer } from './reorder.js';
import { clockRoutes } from './resources/clock.js';
import { customerRoutes } from './resources/customers.js';
import { eventRoutes } from './resources/events.js';
import { invoiceRoutes } from './resources/invoices.js';
import { subscriptionRoutes } from './resources/subscriptions.js';
import { transactionRoutes } from './resources/transactions.js';
import { uvaRoutes } from './resources/uva.js';
import { webhookRoutes } from './resources/webhooks.js';
import { advanceClock } from './timeline.js';
import { WebhookRegistry } from './webhook-registry.js';
import { inSandboxTerms } from './attempt-terms.js';

/** A running sandbox: its address, its accounts and their keys, its clock. */
export interface Sandbox {
  /** The API's base address, `http://127.0.0.1:<port>/v1`. */
  readonly url: string;
  /** The API root before `/v1`, `http://127.0.0.1:<port>`: the document's `{base_url}`, as `createClient` takes it. */
  readonly baseUrl: string;
  readonly port: number;
  /** The first account's test key (`accounts[0].apiKey`): `Authorization: Bearer <apiKey>`. */
  readonly apiKey: string;
  /**
   * Every account, the first first (option `accounts`): each key reaches its own account's
   * resources, webhooks and events only; another account's id answers 403 FORBIDDEN.
   */
  readonly accounts: readonly SandboxTestAccount[];
  /** The sandbox clock: milliseconds since the epoch. */
  readonly now: () => number;
  /**
   * Moves the clock forward (`'30d'`, `'6m'`, or milliseconds) as `POST /v1/sandbox/clock` does:
   * overdue invoices, renewals and retries happen at their own times on the way.
   */
  advance(duration: string | number): Promise<void>;
  /** Resolves when every delivery attempt started so far has been recorded. */
  settle(): Promise<void>;
  /** Stops the server and the Dispatcher; deletes the database unless `database` was given. */
  close(): Promise<void>;
}

const CHANGE_TICK_MS = 1_000;
/** How often a sandbox on the wall clock looks for retries that fell due. */
const RETRY_POLL_MS = 1_000;

/**
 * Starts the platform's sandbox on 127.0.0.1: the /v1 API (webhook management, customers,
 * invoices, transactions, sandbox helpers), whose changes emit the 18 events through a
 * Dispatcher with the sandbox clock, and the fault proxy between that Dispatcher and your
 * receivers.
 *
 * @throws ConfigurationError for an unusable option, here, before anything is opened; on `port`
 *   when the port is already in use
 * @example
 * const sandbox = await createSandbox({ seed: 42 });
 * const answer = await fetch(`${sandbox.url}/customers`, {
 *   method: 'POST',
 *   headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' },
 *   body: JSON.stringify({ name: 'Bäckerei Huber GmbH' }),
 * });
 * await sandbox.close();
 */
export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const valid = parseSandboxOptions(options);
  const temporary = valid.database === undefined ? mkdtempSync(join(tmpdir(), 'acct-sandbox-')) : null;
  const { db } = openConnection(valid.database ?? join(temporary!, 'sandbox.db'), {});
  const cleanUp = () => {
    db.close();
    if (temporary !== null) rmSync(temporary, { recursive: true, force: true });
  };
  try {
    return await start(valid, db, cleanUp);
  } catch (error) {
    cleanUp();
    throw error;
  }
}

async function start(valid: ValidSandboxOptions, db: ReturnType<typeof openConnection>['db'], cleanUp: () => void): Promise<Sandbox> {
  migrateSandbox(db);
  const state = new SandboxState(db);
  const seed = valid.seed ?? null;
  const clock = openClock(state, valid);
  const opened = openAccounts(state, { accounts: valid.accounts, seed, apiKey: valid.apiKey, plan: valid.plan }) as [OpenedAccount, ...OpenedAccount[]];
  adoptUnowned(db, opened[0].account.business.id);
  const logger = resolveLogger(valid.logger, 'dispatcher');
  const resolveHost = valid.resolveHost ?? resolveWithSystem;
  // The Dispatcher reports in its own terms (its ids, the proxy's URL); the registry, made once
  // the Dispatcher exists, names each attempt and disable the way the sandbox API does.
  let webhooks: WebhookRegistry | null = null;
  const dispatcher = new Dispatcher({
    store: sqliteDispatchStore(db),
    clock: clock.now,
    // Signed as the platform signs: with the time of the attempt. The sandbox clock drives what the
    // platform's clock would (created, due dates, renewals, which attempt is due), never the
    // receiver's freshness window, which stays on the wall clock like the receiver's own.
    signingClock: Date.now,
    allowInsecureUrls: true,
    resolveHost,
    timeoutMs: valid.deliveryTimeoutMs,
    // No slow start: the out-of-order fault holds a window of deliveries open at once.
    initialInFlightPerWebhook: DEFAULT_MAX_IN_FLIGHT_PER_WEBHOOK,
    logger: valid.logger,
    onWebhookAlert: (alert) => {
      if (alert.type === 'webhook.disabled') webhooks?.announceDisabled(alert.webhook_id, { disabled_at: alert.disabled_at ?? alert.last_failure_at, failing_since: alert.failing_since });
    },
    ...(valid.onAttempt === undefined ? {} : { onAttempt: (report: AttemptReport) => valid.onAttempt?.(webhooks === null ? report : inSandboxTerms(report, webhooks, forwardLog)) }),
  });
  const pump = new DeliveryPump(dispatcher, (error) => logger.error({ err: error }, 'sandbox delivery run failed'));
  webhooks = new WebhookRegistry({
    db,
    dispatcher,
    clock,
    defaultFaults: valid.faults,
    onStatus: (change) => {
      if (valid.onWebhookStatus !== undefined) contained(() => valid.onWebhookStatus?.(change), (error) => logger.error({ err: error }, 'The onWebhookStatus hook threw'));
    },
  });
  const registry = webhooks;
  const contexts = opened.map(({ account, ids }): SandboxContext => ({
    objects: new ObjectStore(db, account.business.id),
    ids,
    clock,
    emitter: new SandboxEmitter({ dispatcher, ids, pump, businessId: account.business.id }),
    dispatcher,
    pump,
    webhooks: registry.of({ businessId: account.business.id, ids }),
    registry,
    account,
  })) as [SandboxContext, ...SandboxContext[]];
  const faultLog = new FaultLog(db);
  const forwardLog = new ForwardLog(db);
  const reorderer = new Reorderer();
  const proxy = new FaultProxy({ registry: webhooks, dispatcher, faultLog, forwardLog, reorderer, clock, timeoutMs: valid.deliveryTimeoutMs, resolveHost });
  // The moment and the wall clock beside it let a reader of the file (the dashboard) tell the sandbox's time.
  const persistClock = () => state.set('clock', { start: clockStart(state, clock), offset: clock.offset, frozen: clock.isFrozen, now: clock.now(), wall: Date.now() } satisfies SavedSandboxClock);
  const advance = async (ms: number) => {
    await advanceClock(contexts, ms);
    persistClock();
  };
  const planLimit = { max: PLAN_LIMITS_PER_MINUTE[valid.plan], windowMs: 60_000, window: 'minute' };
  // Each key reaches the routes of its own account: the same endpoints, bound to that account's data.
  const accounts = contexts.map((context, index) => ({
    apiKey: opened[index]!.apiKey,
    routes: [
      ...webhookRoutes(context, faultLog, forwardLog),
      ...eventRoutes(context),
      ...customerRoutes(context),
      ...invoiceRoutes(context),
      ...transactionRoutes(context),
      ...subscriptionRoutes(context),
      ...uvaRoutes(context),
      ...clockRoutes(context, advance),
    ],
    requests: new WindowCounter(planLimit, clock.now),
    webhookRetries: new WindowCounter(WEBHOOK_RETRY_LIMIT, clock.now),
  }));
  const server = answerClientErrors(
    createServer(
    apiHandler({
      accounts,
      unknownKeyRequests: new WindowCounter(planLimit, clock.now),
      beforeChange: () => {
        if (clock.isFrozen) clock.moveTo(clock.now() + CHANGE_TICK_MS);
      },
      afterChange: persistClock,
      deliver: (request, response, dispatcherId, body) => proxy.handle(request, response, dispatcherId, body),
      logger,
    }),
  ));
  const port = await listen(server, valid.port);
  await webhooks.useProxy(`http://127.0.0.1:${port}`);
  // Every attempt goes through the pump, so settle() sees it: on emits, on advances, and — while
  // the clock follows the wall clock — for retries that fall due as time passes.
  const retryTimer = clock.isFrozen ? null : setInterval(() => pump.kick(), RETRY_POLL_MS).unref();
  persistClock();
  let closing: Promise<void> | null = null;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    apiKey: opened[0].apiKey,
    accounts: opened.map(({ account, apiKey }) => Object.freeze({ apiKey, business: Object.freeze({ ...account.business }) })),
    now: clock.now,
    advance: (duration) => advance(typeof duration === 'number' ? duration : parseDuration(duration, 'duration')),
    settle: () => pump.settle(),
    close: () => {
      closing ??= (async () => {
        if (retryTimer !== null) clearInterval(retryTimer);
        await reorderer.releaseAll();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await pump.settle();
        await dispatcher.close();
        proxy.close();
        cleanUp();
      })();
      return closing;
    },
  };
}

/** The clock of a reopened file continues where it was; a new one starts at `startAt`. */
function openClock(state: SandboxState, valid: ValidSandboxOptions): SandboxClock {
  const frozen = valid.seed !== undefined;
  const saved = state.get<{ start: number; offset: number }>('clock');
  const start = valid.startAt ?? (frozen ? (saved?.start ?? SEEDED_START) : Date.now());
  return new SandboxClock(start, saved?.offset ?? 0, frozen);
}

function clockStart(state: SandboxState, clock: SandboxClock): number {
  return state.get<{ start: number }>('clock')?.start ?? clock.now() - clock.offset;
}

/** @throws ConfigurationError on `port` when it is in use (the cause keeps Node's EADDRINUSE) or cannot be listened on */
function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const refuse = (error: NodeJS.ErrnoException) => {
      const reason = error.code === 'EADDRINUSE' ? `${port} is already in use; pick another (0 picks a free one)` : `${port} cannot be listened on at 127.0.0.1: ${error.message}`;
      reject(new ConfigurationError({ option: 'port', reason }, `createSandbox: option port ${reason}`, { cause: error }));
    };
    server.once('error', refuse);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', refuse);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
