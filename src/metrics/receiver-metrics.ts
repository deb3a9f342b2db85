import type { MetricsOptions } from './meter.js';
import { ATTEMPT_SECONDS_BUCKETS, METRIC_PREFIX } from './names.js';

/** What the instruments read of a delivery's report: the receiver's `ReceiveOutcome` has it. */
export interface MeasuredOutcome {
  outcome: string;
  status: number;
  durationMs: number;
}

/**
 * The receiver's instruments, fed from its `onOutcome` report: deliveries by outcome and status,
 * and how long each took to answer. Returns the report hook (the user's own `onOutcome`, then the
 * metrics); without `metrics` the user's hook is returned as it was, and nothing is built.
 */
export function withReceiverMetrics<Outcome extends MeasuredOutcome>(
  onOutcome: ((outcome: Outcome) => void) | undefined,
  metrics: MetricsOptions | undefined,
): ((outcome: Outcome) => void) | undefined {
  if (metrics === undefined) return onOutcome;
  const deliveries = metrics.meter.createCounter(`${METRIC_PREFIX}.receiver.deliveries`, { description: 'Deliveries received, by outcome and HTTP status answered' });
  const duration = metrics.meter.createHistogram(`${METRIC_PREFIX}.receiver.duration`, {
    description: 'Time from receiving a delivery to its answer',
    unit: 's',
    advice: { explicitBucketBoundaries: [...ATTEMPT_SECONDS_BUCKETS] },
  });
  return (outcome) => {
    const attributes = { outcome: outcome.outcome, status: outcome.status };
    deliveries.add(1, attributes);
    duration.record(outcome.durationMs / 1000, attributes);
    // The user's hook runs after, as it would alone; what it throws is contained by the receiver.
    onOutcome?.(outcome);
  };
}
