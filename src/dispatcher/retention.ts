import type { Logger } from '../logging/logger.js';
import type { DispatchStore } from '../ports/dispatch-store.js';
import { RETENTION_BATCH_SIZE, type BusinessErasure } from '../ports/retention.js';
import { DELIVERY_PRUNE_INTERVAL_MS } from './dispatcher-defaults.js';
import { DispatcherError } from './errors.js';

/** What one pruning run did. */
export interface PruneResult {
  /** Deliveries deleted (over, and last changed before `deliveryRetentionMs` ago), with their attempts. */
  deliveries: number;
  /** Events whose payload (and their attempts' response bodies) was replaced by the marker. */
  payloads: number;
}

interface RetentionOptions {
  store: () => Promise<DispatchStore>;
  clock: () => number;
  deliveryRetentionMs: number;
  payloadRetentionMs: number | null;
  logger: Logger;
}

/**
 * The delivery log's retention: batches of `RETENTION_BATCH_SIZE` rows, one short statement or
 * transaction each, until a batch comes back short, so that no transaction holds a snapshot for
 * long (on PostgreSQL a long one pins xmin and slows every SKIP LOCKED claim). The running worker
 * starts it at most hourly in the background; `run()` starts it now. Logged without payloads.
 */
export class DeliveryRetention {
  private lastRun = Number.NEGATIVE_INFINITY;
  private running: Promise<PruneResult> | null = null;

  constructor(private readonly options: RetentionOptions) {}

  /** Prunes now (waits for a run already going); what it removed. */
  run(): Promise<PruneResult> {
    this.running ??= this.prune().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Resolves when no pass is running (close waits for it before the store goes). */
  async settled(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  /** From the worker's loop: starts a run in the background when the last is an hour old. */
  runWhenDue(now: number): void {
    if (now - this.lastRun < DELIVERY_PRUNE_INTERVAL_MS) return;
    this.lastRun = now;
    this.run().catch((error: unknown) => this.options.logger.error({ err: error }, 'Could not prune the delivery log; tried again in an hour'));
  }

  /**
   * Replaces every stored payload of one business by the marker (see DispatchStore.eraseBusiness).
   * @throws DispatcherError `RETENTION_UNSUPPORTED` when the store offers no erase
   */
  async erase(businessId: string): Promise<BusinessErasure> {
    const store = await this.options.store();
    if (!store.eraseBusiness) throw unsupported('eraseBusiness');
    const erased = await store.eraseBusiness(businessId, this.options.clock());
    this.options.logger.info({ businessId, ...erased }, 'Erased the stored payloads of a business');
    return erased;
  }

  private async prune(): Promise<PruneResult> {
    const store = await this.options.store();
    if (!store.pruneDeliveries) return { deliveries: 0, payloads: 0 };
    const now = this.options.clock();
    const result = { deliveries: 0, payloads: 0 };
    for (let batch = RETENTION_BATCH_SIZE; batch === RETENTION_BATCH_SIZE; result.deliveries += batch) {
      batch = await store.pruneDeliveries(now - this.options.deliveryRetentionMs, RETENTION_BATCH_SIZE);
    }
    const { payloadRetentionMs } = this.options;
    if (payloadRetentionMs !== null && store.removePayloads) {
      for (let batch = RETENTION_BATCH_SIZE; batch === RETENTION_BATCH_SIZE; result.payloads += batch) {
        batch = await store.removePayloads(now - payloadRetentionMs, RETENTION_BATCH_SIZE, now);
      }
    }
    if (result.deliveries > 0 || result.payloads > 0) this.options.logger.info(result, 'Pruned the delivery log');
    return result;
  }
}

function unsupported(method: string): DispatcherError {
  return new DispatcherError('RETENTION_UNSUPPORTED', `The store offers no ${method}: it keeps its delivery log as it is`, { method });
}
