import { AggregationTemporality, MeterProvider, MetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import { onTestFinished } from 'vitest';
import type { MetricsMeter } from '../../src/index.js';

/** An OpenTelemetry reader that collects on demand, as a scrape does. */
class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface TestMeter {
  meter: MetricsMeter;
  /** The data points of one metric, collected now. */
  points: (name: string) => Promise<DataPoint<number | Histogram>[]>;
  /** What failed in the collection's callbacks. */
  errors: () => Promise<unknown[]>;
}

/** A real OpenTelemetry SDK meter with a reader the test collects from; shut down when the test ends. */
export function testMeter(): TestMeter {
  const reader = new CollectingReader();
  const provider = new MeterProvider({ readers: [reader] });
  onTestFinished(() => provider.shutdown());
  return {
    meter: provider.getMeter('acct-webhook-test'),
    points: async (name) => {
      const { resourceMetrics } = await reader.collect();
      const metric = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((candidate) => candidate.descriptor.name === name);
      return (metric?.dataPoints ?? []) as DataPoint<number | Histogram>[];
    },
    errors: async () => (await reader.collect()).errors,
  };
}
