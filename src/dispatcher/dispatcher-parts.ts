import { countStates } from '../ports/webhook-state-counts.js';
import { newId } from '../kernel/ids.js';
import { resolveLogger, type Logger } from '../logging/logger.js';
import { LegacyScopeWarning } from './legacy-scope.js';
import { DispatcherMetrics, type DispatcherSnapshot } from '../metrics/dispatcher-metrics.js';
import type { DeliveryJob, DispatchStore, Lease, RecordedAttempt } from '../ports/dispatch-store.js';
import { WakeUpListener } from '../ports/wake-ups.js';
import { alertReporter } from './alerts.js';
import { attemptReporter } from './attempt-report.js';
import { AttemptRunner } from './attempt-runner.js';
import { Deliveries } from './deliveries.js';
import { DEFAULT_DATABASE_FILE, RESPONSE_BODY_LIMIT_BYTES } from './dispatcher-defaults.js';
import { InFlight } from './in-flight.js';
import { parseDispatcherOptions, settingsOf, type DispatcherOptions, type DispatcherSettings } from './options.js';
import { SlidingWindowLimiter } from './rate-limit.js';
import { Registrations } from './registrations.js';
import { DeliveryRetention } from './retention.js';
import { HttpSender } from './sender.js';
import { StoreGate } from './store-gate.js';
import { resolveWithSystem, UrlGuard } from './url-guard.js';
import { Worker } from './worker.js';

/**
 * Opens the store of a dispatcher given none, on its `database` file. The entry points choose it
 * (src/platform/node.ts): the dispatcher itself knows no backend.
 */
export type OpenDefaultDispatchStore = (database: string) => DispatchStore;

/** A dispatcher's collaborators, each made from the ones before it. */
export interface DispatcherParts {
  settings: DispatcherSettings;
  clock: () => number;
  logger: Logger;
  gate: StoreGate;
  /** A lease by this instance from `now`. */
  lease: (now: number) => Lease;
  sender: HttpSender;
  metrics: DispatcherMetrics | null;
  inFlight: InFlight;
  runner: AttemptRunner;
  retention: DeliveryRetention;
  worker: Worker<DeliveryJob>;
  wakeUpListener: WakeUpListener;
  webhooks: Registrations;
  deliveries: Deliveries;
  legacy: LegacyScopeWarning;
}

/**
 * Checks the options and builds the dispatcher's collaborators in dependency order: each is
 * given only what it uses, and nothing refers to a part made after it. The attempts in flight
 * come before everything that starts work (the alerts, the runner's reports, manual retries, the
 * worker), so none of them needs the worker.
 *
 * @throws ConfigurationError for any unusable option, a SQLite file that cannot be opened or a
 *   missing better-sqlite3 (for `database`)
 */
export function buildDispatcherParts(options: DispatcherOptions, openDefaultStore: OpenDefaultDispatchStore): DispatcherParts {
  const valid = parseDispatcherOptions(options);
  const settings = Object.freeze(settingsOf(valid));
  const clock = valid.clock ?? Date.now;
  const signingClock = valid.signingClock ?? clock;
  const logging = valid.logger !== false;
  const logger = resolveLogger(valid.logger, 'dispatcher');
  const guard = new UrlGuard({ allowInsecureUrls: settings.allowInsecureUrls, allowedHosts: settings.allowedHosts, resolveHost: valid.resolveHost ?? resolveWithSystem });
  // Opened last, so that a bad option leaves no file behind.
  const gate = new StoreGate(valid.store ?? openDefaultStore(settings.database ?? DEFAULT_DATABASE_FILE), valid.store === undefined);
  const usable = (): Promise<DispatchStore> => gate.usable();
  const owner = newId('wrk');
  const lease = (now: number): Lease => ({ owner, until: now + settings.leaseMs });

  const sender = new HttpSender({ timeoutMs: settings.timeoutMs, bodyLimitBytes: RESPONSE_BODY_LIMIT_BYTES, guard, ca: valid.ca });
  const metrics = valid.metrics === undefined ? null : new DispatcherMetrics(valid.metrics.meter, valid.metrics.perWebhook ?? false, () => snapshot(gate, clock, valid.metrics?.perWebhook ?? false));
  const inFlight = new InFlight((error) => logger.error({ err: error }, 'webhook worker error'));
  const reportAttempt = attemptReporter(logger, logging, valid.onAttempt, metrics);
  const reportAlerts = alertReporter({
    logger,
    logging,
    onWebhookAlert: valid.onWebhookAlert,
    alertWebhook: valid.alertWebhook,
    sender,
    clock,
    signingClock,
    disableAfterMs: settings.disableFailingAfterMs,
    track: (work) => void inFlight.track(work),
  });
  const runner = new AttemptRunner({
    store: gate.store,
    sender,
    clock,
    signingClock,
    schedule: settings.schedule,
    policy: { disableAfterMs: settings.disableFailingAfterMs, warnAt: settings.failureWarnings, countDeliveredUpTo: settings.maxInFlightPerWebhook },
    report: (recorded: RecordedAttempt) => {
      reportAttempt(recorded);
      if (recorded.alerts.length > 0) reportAlerts(recorded);
    },
    owner,
  });
  const retention = new DeliveryRetention({
    store: usable,
    clock,
    deliveryRetentionMs: settings.deliveryRetentionMs,
    payloadRetentionMs: settings.payloadRetentionMs,
    logger,
  });
  const worker = new Worker<DeliveryJob>({
    claim: async (limit) => {
      const store = await gate.usable();
      const now = clock();
      retention.runWhenDue(now);
      return store.claimDue({
        now,
        limit,
        lease: lease(now),
        maxInFlight: settings.maxInFlightPerWebhook,
        maxInFlightWhileFailing: settings.maxInFlightPerFailingWebhook,
        initialInFlight: settings.initialInFlightPerWebhook,
      });
    },
    nextDueAt: () => gate.store.nextDueAt(),
    process: (job) => runner.run(job, { manual: false }),
    onError: (error) => logger.error({ err: error }, 'webhook worker error'),
    clock,
    concurrency: settings.concurrency,
    pollIntervalMs: settings.pollIntervalMs,
    inFlight,
  });
  // Notifications from emits in other processes wake the worker (PostgreSQL); the poll stays.
  const wakeUpListener = new WakeUpListener(gate.store.wakeUps, () => worker.wake(), logging ? logger : undefined, 'dispatcher');
  const legacy = new LegacyScopeWarning(logger);
  const webhooks = new Registrations({ store: usable, guard, clock, firstWaitMs: (settings.schedule[0] ?? 0) * 1000, wake: () => worker.wake(), legacy, retentionMs: settings.deliveryRetentionMs });
  const deliveries = new Deliveries({
    store: usable,
    runner,
    limiter: new SlidingWindowLimiter(settings.manualRetryLimit, clock),
    track: (work) => inFlight.track(work),
  });
  return { settings, clock, logger, gate, lease, sender, metrics, inFlight, runner, retention, worker, wakeUpListener, webhooks, deliveries, legacy };
}

/** What the metrics' gauges read at a collection. */
async function snapshot(gate: StoreGate, clock: () => number, perWebhook: boolean): Promise<DispatcherSnapshot> {
  const store = await gate.usable();
  const now = clock();
  // Counted by the database unless the per-webhook gauges need every registration anyway.
  if (!perWebhook && store.countWebhooks) {
    const [queue, counts] = await Promise.all([store.queueStats(now), store.countWebhooks()]);
    return { queue, counts, webhooks: [], activity: new Map(), now };
  }
  const [queue, webhooks, activity] = await Promise.all([store.queueStats(now), store.listWebhooks(), store.webhookActivity(now)]);
  return { queue, counts: countStates(webhooks), webhooks, activity, now };
}
