import type { WebhookStateCounts } from '../ports/webhook-state-counts.js';
import type { ATTEMPT_FIELDS, DELIVERY_FIELDS } from '../ports/delivery-fields.js';
import type { QueueStats, StoredWebhook, WebhookActivity } from '../ports/dispatch-store.js';
import type { RecordOf } from '../ports/fields.js';
import type { BatchObservation, MetricAttributes, MetricCounter, MetricHistogram, MetricObservable, MetricsMeter } from './meter.js';
import { ATTEMPT_SECONDS_BUCKETS, LATENCY_SECONDS_BUCKETS, METRIC_PREFIX } from './names.js';

/** What the instruments read of one recorded attempt: the dispatcher's `AttemptReport` has it. */
export interface MeasuredAttempt {
  attempt: Pick<RecordOf<typeof ATTEMPT_FIELDS>, 'error_kind' | 'response_status' | 'webhook_id' | 'response_time_ms' | 'test' | 'attempted_at'>;
  delivery: Pick<RecordOf<typeof DELIVERY_FIELDS>, 'created_at'>;
}

/** What the gauges read at each collection, from the store. */
export interface DispatcherSnapshot {
  queue: QueueStats;
  /** The registrations per state, for the `webhooks` gauge. */
  counts: WebhookStateCounts;
  /** Every registration: read only for the per-webhook gauges (`perWebhook`), else empty. */
  webhooks: readonly StoredWebhook[];
  activity: ReadonlyMap<string, WebhookActivity>;
  now: number;
}

interface Gauges {
  queueDepth: MetricObservable;
  oldestDueAge: MetricObservable;
  webhooks: MetricObservable;
  failureStreak?: MetricObservable;
  inFlight?: MetricObservable;
  disabled?: MetricObservable;
}

const QUEUE_STATES = ['due', 'scheduled', 'in_flight', 'paused'] as const;

/**
 * The dispatcher's instruments. Attempts are counted as they are recorded; the queue and the
 * registrations are read from the store only when the metrics are collected (a scrape), in one
 * batch. With `perWebhook`, attempt series carry `webhook_id` and each webhook gets its own
 * state series.
 */
export class DispatcherMetrics {
  private readonly attempts: MetricCounter;
  private readonly attemptDuration: MetricHistogram;
  private readonly deliveryLatency: MetricHistogram;
  private readonly gauges: Gauges;
  /** Every gauge, read by one callback at each collection. */
  private readonly observables: MetricObservable[];
  private readonly collect: (observation: BatchObservation) => Promise<void>;

  constructor(
    private readonly meter: MetricsMeter,
    private readonly perWebhook: boolean,
    snapshot: () => Promise<DispatcherSnapshot>,
  ) {
    const name = (suffix: string) => `${METRIC_PREFIX}.dispatcher.${suffix}`;
    this.attempts = meter.createCounter(name('attempts'), { description: 'Attempts made, by outcome (delivered, failed) and status class (2xx … 5xx, none)' });
    this.attemptDuration = meter.createHistogram(name('attempt.duration'), {
      description: 'Time from sending an attempt to its answer or failure',
      unit: 's',
      advice: { explicitBucketBoundaries: [...ATTEMPT_SECONDS_BUCKETS] },
    });
    this.deliveryLatency = meter.createHistogram(name('delivery.latency'), {
      description: 'Time from emit to delivered, retries included',
      unit: 's',
      advice: { explicitBucketBoundaries: [...LATENCY_SECONDS_BUCKETS] },
    });
    this.gauges = {
      queueDepth: meter.createObservableGauge(name('queue.depth'), { description: 'Pending deliveries by state: due, scheduled, in_flight, paused (webhook disabled)' }),
      oldestDueAge: meter.createObservableGauge(name('queue.oldest_due_age'), { description: 'How long the earliest due delivery has been due (0 when none is)', unit: 's' }),
      webhooks: meter.createObservableGauge(name('webhooks'), { description: 'Registrations by state: active, failing (active, last attempt failed), disabled' }),
      ...(perWebhook
        ? {
            failureStreak: meter.createObservableGauge(name('webhook.failure_streak'), { description: 'Failed attempts in a row, per webhook' }),
            inFlight: meter.createObservableGauge(name('webhook.in_flight'), { description: 'Attempts in flight, per webhook' }),
            disabled: meter.createObservableGauge(name('webhook.disabled'), { description: '1 when the webhook is disabled, per webhook' }),
          }
        : {}),
    };
    const { queueDepth, oldestDueAge, webhooks, failureStreak, inFlight, disabled } = this.gauges;
    this.observables = [queueDepth, oldestDueAge, webhooks, ...[failureStreak, inFlight, disabled].filter((gauge) => gauge !== undefined)];
    this.collect = async (observation) => this.observe(observation, await snapshot());
    meter.addBatchObservableCallback(this.collect, this.observables);
  }

  /** Counts one recorded attempt, its duration, and the delivery's latency when it was delivered. */
  attempt({ attempt, delivery }: MeasuredAttempt): void {
    const delivered = attempt.error_kind === null;
    const attributes: MetricAttributes = { outcome: delivered ? 'delivered' : 'failed', status_class: statusClass(attempt.response_status) };
    if (this.perWebhook) attributes.webhook_id = attempt.webhook_id;
    this.attempts.add(1, attributes);
    this.attemptDuration.record(attempt.response_time_ms / 1000, attributes);
    if (delivered && !attempt.test) {
      const end = Date.parse(attempt.attempted_at) + attempt.response_time_ms;
      this.deliveryLatency.record(Math.max(0, end - Date.parse(delivery.created_at)) / 1000, this.perWebhook ? { webhook_id: attempt.webhook_id } : {});
    }
  }

  /** Stops reading the store at collections (the dispatcher is closing). */
  close(): void {
    this.meter.removeBatchObservableCallback(this.collect, this.observables);
  }

  private observe(observation: BatchObservation, { queue, counts, webhooks, activity, now }: DispatcherSnapshot): void {
    for (const state of QUEUE_STATES) observation.observe(this.gauges.queueDepth, queue[state], { state });
    observation.observe(this.gauges.oldestDueAge, queue.oldest_due_at === null ? 0 : Math.max(0, now - queue.oldest_due_at) / 1000);
    for (const state of ['active', 'failing', 'disabled'] as const) observation.observe(this.gauges.webhooks, counts[state], { state });
    const { failureStreak, inFlight, disabled } = this.gauges;
    if (failureStreak === undefined || inFlight === undefined || disabled === undefined) return;
    for (const webhook of webhooks) {
      const labels = { webhook_id: webhook.id };
      observation.observe(failureStreak, webhook.failure_streak, labels);
      observation.observe(inFlight, activity.get(webhook.id)?.in_flight ?? 0, labels);
      observation.observe(disabled, webhook.status === 'disabled' ? 1 : 0, labels);
    }
  }
}

function statusClass(status: number | null): string {
  return status === null ? 'none' : `${Math.floor(status / 100)}xx`;
}
