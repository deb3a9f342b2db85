import type { EventType } from '../events/catalog.js';
import { registerStoreAccess } from './reads.js';
import type { EventMap, EventObject, WebhookEvent } from '../events/schemas.js';
import { newId } from '../kernel/ids.js';
import { resolveLogger, type Logger } from '../logging/logger.js';
import { onceSucceeded } from '../kernel/once.js';
import { DispatcherMetrics, type DispatcherSnapshot } from '../metrics/dispatcher-metrics.js';
import { alertReporter } from './alerts.js';
import { attemptReporter } from './attempt-report.js';
import { AttemptRunner } from './attempt-runner.js';
import { DEFAULT_DATABASE_FILE, RESPONSE_BODY_LIMIT_BYTES } from './dispatcher-defaults.js';
import { Deliveries } from './deliveries.js';
import { prepareEnvelope, prepareFromParts, prepareTestEvent, resolveRepeat, subscribers, type EmitOptions, type PreparedEvent } from './emit.js';
import { DispatcherError, NotFoundError } from './errors.js';
import { parseDispatcherOptions, settingsOf, type DispatcherOptions, type DispatcherSettings } from './options.js';
import { SlidingWindowLimiter } from './rate-limit.js';
import type { DeliveryDetail } from './records.js';
import { Registrations } from './registrations.js';
import { HttpSender } from './sender.js';
import type { DeliveryJob, DispatchStore, Lease, NewDelivery, RecordedAttempt } from '../ports/dispatch-store.js';
import { resolveWithSystem, UrlGuard } from './url-guard.js';
import { Worker } from './worker.js';
import { WakeUpListener } from '../ports/wake-ups.js';
import type { BusinessErasure } from '../ports/retention.js';
import { DeliveryRetention, type PruneResult } from './retention.js';

/**
 * Opens the store of a dispatcher given none, on its `database` file. The entry points choose it
 * (src/platform/node.ts): the dispatcher itself knows no backend.
 */
export type OpenDefaultDispatchStore = (database: string) => DispatchStore;

/**
 * The dispatcher, with the store it is given or the one `openDefaultStore` opens: every
 * `Dispatcher` is one. The class acct-webhook/dispatcher exports (src/platform/node-dispatcher.ts)
 * extends it with the default store, a SQLite file.
 */
export class DispatcherCore {
  /** Registrations: create, list, get, update, delete, rotateSecret. */
  readonly webhooks: Registrations;
  /** The delivery log: list, get, retry, export. */
  readonly deliveries: Deliveries;
  /** The options in effect. */
  readonly settings: DispatcherSettings;

  private readonly clock: () => number;
  private readonly logger: Logger;
  private readonly store: DispatchStore;
  /** Made here from `database`, so `close()` closes it; a `store` that was passed in stays open. */
  private readonly ownsStore: boolean;
  private readonly sender: HttpSender;
  private readonly runner: AttemptRunner;
  private readonly worker: Worker<DeliveryJob>;
  /** This instance's name in leases. */
  private readonly owner = newId('wrk');
  /** The store's ready(), once it succeeded; a failure (the database was away) is tried again by the next call. */
  private readonly storeReady: () => Promise<void>;
  private readonly metrics: DispatcherMetrics | null;
  private closed = false;
  private closing: Promise<void> | null = null;
  private readonly retention: DeliveryRetention;
  /** Notifications from emits in other processes wake the worker (PostgreSQL); the poll stays. */
  private readonly wakeUpListener: WakeUpListener;

  /**
   * @throws ConfigurationError for any unusable option, a SQLite file that cannot be opened or a
   *   missing better-sqlite3 (for `database`) — here, never later
   */
  constructor(options: DispatcherOptions, openDefaultStore: OpenDefaultDispatchStore) {
    const valid = parseDispatcherOptions(options);
    this.settings = Object.freeze(settingsOf(valid));
    this.clock = valid.clock ?? Date.now;
    const signingClock = valid.signingClock ?? this.clock;
    this.logger = resolveLogger(valid.logger, 'dispatcher');
    const guard = new UrlGuard({
      allowInsecureUrls: this.settings.allowInsecureUrls,
      allowedHosts: this.settings.allowedHosts,
      resolveHost: valid.resolveHost ?? resolveWithSystem,
    });
    // Opened last, so that a bad option leaves no file behind.
    this.ownsStore = valid.store === undefined;
    this.store = valid.store ?? openDefaultStore(this.settings.database ?? DEFAULT_DATABASE_FILE);
    this.storeReady = onceSucceeded(() => this.store.ready());
    this.sender = new HttpSender({ timeoutMs: this.settings.timeoutMs, bodyLimitBytes: RESPONSE_BODY_LIMIT_BYTES, guard, ca: valid.ca });
    this.metrics = valid.metrics === undefined ? null : new DispatcherMetrics(valid.metrics.meter, valid.metrics.perWebhook ?? false, () => this.snapshot());
    const reportAttempt = attemptReporter(this.logger, valid.logger !== false, valid.onAttempt, this.metrics);
    const reportAlerts = alertReporter({
      logger: this.logger,
      logging: valid.logger !== false,
      onWebhookAlert: valid.onWebhookAlert,
      alertWebhook: valid.alertWebhook,
      sender: this.sender,
      clock: this.clock,
      signingClock,
      disableAfterMs: this.settings.disableFailingAfterMs,
      track: (work) => void this.worker.track(work),
    });
    this.runner = new AttemptRunner({
      store: this.store,
      sender: this.sender,
      clock: this.clock,
      signingClock,
      schedule: this.settings.schedule,
      policy: { disableAfterMs: this.settings.disableFailingAfterMs, warnAt: this.settings.failureWarnings, countDeliveredUpTo: this.settings.maxInFlightPerWebhook },
      report: (recorded: RecordedAttempt) => {
        reportAttempt(recorded);
        if (recorded.alerts.length > 0) reportAlerts(recorded);
      },
      owner: this.owner,
    });
    this.worker = new Worker<DeliveryJob>({
      claim: (limit) => this.claim(limit),
      nextDueAt: () => this.store.nextDueAt(),
      process: (job) => this.runner.run(job, { manual: false }),
      onError: (error) => this.logger.error({ err: error }, 'webhook worker error'),
      clock: this.clock,
      concurrency: this.settings.concurrency,
      pollIntervalMs: this.settings.pollIntervalMs,
    });
    this.wakeUpListener = new WakeUpListener(this.store.wakeUps, () => this.worker.wake(), valid.logger === false ? undefined : this.logger, 'dispatcher');
    const store = () => this.usableStore();
    this.retention = new DeliveryRetention({
      store,
      clock: this.clock,
      deliveryRetentionMs: this.settings.deliveryRetentionMs,
      payloadRetentionMs: this.settings.payloadRetentionMs,
      logger: this.logger,
    });
    registerStoreAccess(this, store);
    this.webhooks = new Registrations({
      store,
      guard,
      clock: this.clock,
      firstWaitMs: (this.settings.schedule[0] ?? 0) * 1000,
      wake: () => this.worker.wake(),
    });
    this.deliveries = new Deliveries({
      store,
      runner: this.runner,
      limiter: new SlidingWindowLimiter(this.settings.manualRetryLimit, this.clock),
      track: (work) => this.worker.track(work),
    });
  }

  /**
   * Builds an event (`evt_…` id, `created` from the clock, `api_version`, a correlation id when
   * none is given), validates it with the receiver's schemas, stores it once and queues one
   * delivery for every active webhook subscribed to its type. Also takes a ready envelope.
   * Emitting an event id again stores and sends nothing new and returns the stored event.
   *
   * @throws WebhookValidationError (`VALIDATION_ERROR`, `UNKNOWN_EVENT_TYPE`); DispatcherError
   *   `EVENT_ID_CONFLICT` for a different event under a used id
   * @example
   * await dispatcher.emit('invoice.paid', invoice, { business_id: 'biz_4mVt9QeZxK2hRw7L', previous_attributes: { status: 'sent', paid_at: null } });
   */
  emit<T extends EventType>(type: T, object: EventObject<T>, options: EmitOptions<T>): Promise<EventMap[T]>;
  emit<E extends WebhookEvent>(event: E): Promise<E>;
  async emit(typeOrEvent: unknown, object?: unknown, options?: unknown): Promise<WebhookEvent> {
    const prepared =
      typeof typeOrEvent === 'string'
        ? prepareFromParts(typeOrEvent as EventType, object as never, options as EmitOptions<EventType>, this.clock())
        : prepareEnvelope(typeOrEvent);
    const store = await this.usableStore();
    const targets = subscribers(await store.listWebhooks(), prepared.event.type);
    const now = this.clock();
    const firstDue = now + (this.settings.schedule[0] ?? 0) * 1000;
    const active = targets.filter((webhook) => webhook.status === 'active');
    const skipped = targets.filter((webhook) => webhook.status !== 'active').map((webhook) => webhook.id);
    const deliveries = active.map((webhook) => ({ id: newId('dlv'), webhook_id: webhook.id, next_attempt_at: firstDue }));
    const event = await this.storeEvent(prepared, now, deliveries, { skipped });
    this.worker.wake();
    return event;
  }

  /**
   * Sends a sample event (the first type the webhook subscribes to) to this webhook only, now,
   * and resolves with the delivery and its first attempt. The delivery is marked `test: true`;
   * when the attempt fails it is retried on the schedule like any other.
   * @throws NotFoundError
   */
  async sendTest(webhookId: string): Promise<DeliveryDetail> {
    const store = await this.usableStore();
    const webhook = await store.getWebhook(webhookId);
    if (!webhook) throw new NotFoundError('webhook', webhookId);
    const now = this.clock();
    const prepared = prepareTestEvent(webhook, now);
    const deliveryId = newId('dlv');
    // Leased by this instance from the start, so no worker sends it while we do.
    const delivery = { id: deliveryId, webhook_id: webhook.id, next_attempt_at: now, lease: this.lease(now) };
    await this.storeEvent(prepared, now, [delivery], { test: true });
    const job = await store.loadJob(deliveryId);
    if (!job) throw new NotFoundError('delivery', deliveryId);
    await this.worker.track(this.runner.run(job, { manual: false }));
    return this.deliveries.get(deliveryId);
  }

  /**
   * Resolves when the store is usable (schema migrated, connection made). Every method waits for
   * it by itself; call it at start-up to fail fast when the database is away. A failure is not
   * remembered: the next call tries again.
   * @throws DispatcherError `DISPATCHER_CLOSED` after `close()`
   * @example
   * await dispatcher.ready(); // at start-up: the process fails now if the database is away
   */
  async ready(): Promise<void> {
    await this.usableStore();
  }

  /** Starts the worker: it sends what is due, `concurrency` at a time, until `stop()`. */
  async start(): Promise<void> {
    await this.usableStore();
    this.worker.start();
    await this.wakeUpListener.start();
  }

  /**
   * Stops the worker gracefully: no new claims; every attempt in flight finishes and is recorded
   * before this resolves.
   */
  async stop(): Promise<void> {
    await this.wakeUpListener.stop();
    await this.worker.stop();
  }

  /**
   * Sends everything due at `clock()` now and resolves when it is recorded; repeats until nothing
   * is due. With a fake clock this runs the whole schedule in milliseconds. Returns the number
   * of attempts made.
   */
  async runDue(): Promise<number> {
    await this.usableStore();
    return this.worker.runDue();
  }

  /**
   * Prunes the delivery log now, as the running worker does at most hourly: deliveries that are
   * over and older than `deliveryRetentionMs` with their attempts and events, then (with
   * `payloadRetentionMs`) the payloads and response bodies older than that, each in batches of
   * 500 rows. Nothing still retrying is touched. Resolves with what it removed.
   * @example
   * const { deliveries, payloads } = await dispatcher.pruneDeliveries();
   */
  async pruneDeliveries(): Promise<PruneResult> {
    await this.usableStore();
    return this.retention.run();
  }

  /**
   * Removes every stored payload of one business (`business_id`): its events' payloads and their
   * attempts' response bodies become the marker "payload no longer kept", metadata stays; its
   * deliveries still retrying are ended (`finally_failed`). Logged with the counts, never a payload.
   * @throws DispatcherError `RETENTION_UNSUPPORTED` on a store of your own without `eraseBusiness`
   * @example
   * await dispatcher.eraseBusiness('biz_4mVt9QeZxK2hRw7L'); // { events, attempts, deliveriesEnded }
   */
  async eraseBusiness(businessId: string): Promise<BusinessErasure> {
    await this.usableStore();
    return this.retention.erase(businessId);
  }

  /**
   * Refuses new work (`DISPATCHER_CLOSED`), stops the worker, waits for every attempt in flight to
   * be recorded, then closes connections and the database it opened. Safe to call again.
   */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.closed = true;
    this.metrics?.close();
    await this.wakeUpListener.stop();
    await this.worker.stop();
    await this.worker.drain();
    await this.retention.settled();
    this.sender.close();
    if (this.ownsStore) await this.store.close();
  }

  private async usableStore(): Promise<DispatchStore> {
    if (this.closed) throw new DispatcherError('DISPATCHER_CLOSED', 'The dispatcher was closed', {});
    await this.storeReady();
    return this.store;
  }

  private async storeEvent(
    prepared: PreparedEvent,
    now: number,
    deliveries: NewDelivery[],
    { test = false, skipped = [] }: { test?: boolean; skipped?: string[] } = {},
  ): Promise<WebhookEvent> {
    const store = await this.usableStore();
    const result = await store.insertEvent(
      { id: prepared.event.id, type: prepared.event.type, payload: prepared.payload, correlation_id: prepared.event.correlation_id, test, created_at: now },
      deliveries,
      skipped,
    );
    return result.inserted ? prepared.event : resolveRepeat(result.existing, prepared);
  }

  private async claim(limit: number): Promise<DeliveryJob[]> {
    const store = await this.usableStore();
    const now = this.clock();
    this.retention.runWhenDue(now);
    return store.claimDue({
      now,
      limit,
      lease: this.lease(now),
      maxInFlight: this.settings.maxInFlightPerWebhook,
      maxInFlightWhileFailing: this.settings.maxInFlightPerFailingWebhook,
      initialInFlight: this.settings.initialInFlightPerWebhook,
    });
  }

  /** What the metrics' gauges read at a collection. */
  private async snapshot(): Promise<DispatcherSnapshot> {
    const store = await this.usableStore();
    const now = this.clock();
    const [queue, webhooks, activity] = await Promise.all([store.queueStats(now), store.listWebhooks(), store.webhookActivity(now)]);
    return { queue, webhooks, activity, now };
  }

  private lease(now: number): Lease {
    return { owner: this.owner, until: now + this.settings.leaseMs };
  }
}
