import type { EventType } from '../events/catalog.js';
import { registerStoreAccess } from './reads.js';
import type { EventMap, EventObject, WebhookEvent } from '../events/schemas.js';
import { newId } from '../kernel/ids.js';
import { buildDispatcherParts, type DispatcherParts, type OpenDefaultDispatchStore } from './dispatcher-parts.js';
import type { Deliveries } from './deliveries.js';
import { prepareEnvelope, prepareFromParts, prepareTestEvent, resolveRepeat, subscribers, type EmitOptions, type PreparedEvent } from './emit.js';
import { storeFailure } from '../kernel/store-unavailable.js';
import { NotFoundError } from './errors.js';
import { EventFeed } from './events.js';
import type { DispatcherOptions, DispatcherSettings } from './options.js';
import type { DeliveryDetail } from './records.js';
import type { Registrations } from './registrations.js';
import type { DispatchStore, NewDelivery } from '../ports/dispatch-store.js';
import type { BusinessErasure } from '../ports/retention.js';
import type { PruneResult } from './retention.js';

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
  /** The events feed: every stored event of a business, oldest first, for the delivery log's retention: list, count, get. */
  readonly events: EventFeed;
  /** The options in effect. */
  readonly settings: DispatcherSettings;

  /** Its collaborators, made in dependency order by {@link buildDispatcherParts}. */
  private readonly parts: DispatcherParts;
  private closing: Promise<void> | null = null;

  /**
   * @throws ConfigurationError for any unusable option, a SQLite file that cannot be opened or a
   *   missing better-sqlite3 (for `database`) — here, never later
   */
  constructor(options: DispatcherOptions, openDefaultStore: OpenDefaultDispatchStore) {
    this.parts = buildDispatcherParts(options, openDefaultStore);
    this.settings = this.parts.settings;
    this.webhooks = this.parts.webhooks;
    this.deliveries = this.parts.deliveries;
    const { gate } = this.parts;
    this.events = new EventFeed({ store: () => gate.usable(), clock: this.parts.clock, retentionMs: this.settings.deliveryRetentionMs });
    registerStoreAccess(this, () => gate.usable());
  }

  /**
   * Builds an event (`evt_…` id, `created` from the clock, `api_version`, a correlation id when
   * none is given), validates it with the receiver's schemas, stores it once and queues one
   * delivery for every active webhook subscribed to its type. Also takes a ready envelope.
   * Emitting an event id again stores and sends nothing new and returns the stored event.
   *
   * @throws WebhookValidationError (`VALIDATION_ERROR`, `UNKNOWN_EVENT_TYPE`); DispatcherError
   *   `EVENT_ID_CONFLICT` for a different event under a used id; StoreUnavailableError
   *   (`STORE_UNAVAILABLE`) when the store failed (the database away, a connection ended)
   * @example
   * await dispatcher.emit('invoice.paid', invoice, { business_id: 'biz_4mVt9QeZxK2hRw7L', previous_attributes: { status: 'sent', paid_at: null } });
   */
  emit<T extends EventType>(type: T, object: EventObject<T>, options: EmitOptions<T>): Promise<EventMap[T]>;
  emit<E extends WebhookEvent>(event: E): Promise<E>;
  async emit(typeOrEvent: unknown, object?: unknown, options?: unknown): Promise<WebhookEvent> {
    const prepared =
      typeof typeOrEvent === 'string'
        ? prepareFromParts(typeOrEvent as EventType, object as never, options as EmitOptions<EventType>, this.parts.clock())
        : prepareEnvelope(typeOrEvent);
    try {
      return await this.emitPrepared(prepared);
    } catch (error) {
      throw storeFailure(error);
    }
  }

  private async emitPrepared(prepared: PreparedEvent): Promise<WebhookEvent> {
    const store = await this.usableStore();
    const targets = subscribers(await store.webhooksOfBusiness(prepared.event.business_id), prepared.event.type);
    this.parts.legacy.check(targets);
    const now = this.parts.clock();
    const firstDue = now + (this.settings.schedule[0] ?? 0) * 1000;
    const active = targets.filter((webhook) => webhook.status === 'active');
    const skipped = targets.filter((webhook) => webhook.status !== 'active').map((webhook) => webhook.id);
    const deliveries = active.map((webhook) => ({ id: newId('dlv'), webhook_id: webhook.id, next_attempt_at: firstDue }));
    const event = await this.storeEvent(prepared, now, deliveries, { skipped });
    this.parts.worker.wake();
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
    const now = this.parts.clock();
    const prepared = prepareTestEvent(webhook, now);
    const deliveryId = newId('dlv');
    // Leased by this instance from the start, so no worker sends it while we do.
    const delivery = { id: deliveryId, webhook_id: webhook.id, next_attempt_at: now, lease: this.parts.lease(now) };
    await this.storeEvent(prepared, now, [delivery], { test: true });
    const job = await store.loadJob(deliveryId);
    if (!job) throw new NotFoundError('delivery', deliveryId);
    await this.parts.worker.track(this.parts.runner.run(job, { manual: false }));
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
    this.parts.worker.start();
    await this.parts.wakeUpListener.start();
  }

  /**
   * Stops the worker gracefully: no new claims; every attempt in flight finishes and is recorded
   * before this resolves.
   */
  async stop(): Promise<void> {
    await this.parts.wakeUpListener.stop();
    await this.parts.worker.stop();
  }

  /**
   * Sends everything due at `clock()` now and resolves when it is recorded; repeats until nothing
   * is due. With a fake clock this runs the whole schedule in milliseconds. Returns the number
   * of attempts made.
   */
  async runDue(): Promise<number> {
    await this.usableStore();
    return this.parts.worker.runDue();
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
    return this.parts.retention.run();
  }

  /**
   * Removes every stored payload of one business (`business_id`): its events' payloads and their
   * attempts' response bodies become the marker "payload no longer kept", metadata stays; its
   * deliveries still retrying are ended (`finally_failed`). Logged with the counts, never a payload.
   * On SQLite no copy stays in the files (freed pages zeroed, the WAL emptied); on PostgreSQL the
   * old row versions go with `VACUUM FULL` of the dispatcher's tables (docs/dispatcher.md).
   * @throws DispatcherError `RETENTION_UNSUPPORTED` on a store of your own without `eraseBusiness`
   * @example
   * await dispatcher.eraseBusiness('biz_4mVt9QeZxK2hRw7L'); // { events, attempts, deliveriesEnded }
   */
  async eraseBusiness(businessId: string): Promise<BusinessErasure> {
    await this.usableStore();
    return this.parts.retention.erase(businessId);
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
    const { gate, metrics, wakeUpListener, worker, inFlight, retention, sender } = this.parts;
    gate.close();
    metrics?.close();
    await wakeUpListener.stop();
    await worker.stop();
    await inFlight.drain();
    await retention.settled();
    sender.close();
    if (gate.owned) await gate.store.close();
  }

  private usableStore(): Promise<DispatchStore> {
    return this.parts.gate.usable();
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
}
