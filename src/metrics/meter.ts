/*
 * The part of the OpenTelemetry metrics API (`@opentelemetry/api`, an optional peer dependency)
 * that the package calls, written out so that the package never imports it: an OpenTelemetry
 * `Meter` fits as it is (`metrics.getMeter('acct-webhook')`), and without one nothing is built or
 * measured. A type test keeps the two in step.
 */

/** Attribute values of a measurement: the labels of a Prometheus series. */
export type MetricAttributes = Record<string, string | number | boolean>;

export interface MetricOptions {
  description?: string;
  unit?: string;
  /** Bucket boundaries for a histogram (OpenTelemetry's advisory parameter). */
  advice?: { explicitBucketBoundaries?: number[] };
}

export interface MetricCounter {
  add(value: number, attributes?: MetricAttributes): void;
}

export interface MetricHistogram {
  record(value: number, attributes?: MetricAttributes): void;
}

/** A gauge whose value is read when the metrics are collected (a scrape). */
export type MetricObservable = object;

export interface BatchObservation {
  observe(observable: MetricObservable, value: number, attributes?: MetricAttributes): void;
}

/** What the package calls on a meter; an OpenTelemetry `Meter` has all of it. */
export interface MetricsMeter {
  createCounter(name: string, options?: MetricOptions): MetricCounter;
  createHistogram(name: string, options?: MetricOptions): MetricHistogram;
  createObservableGauge(name: string, options?: MetricOptions): MetricObservable;
  addBatchObservableCallback(callback: (observation: BatchObservation) => void | Promise<void>, observables: MetricObservable[]): void;
  removeBatchObservableCallback(callback: (observation: BatchObservation) => void | Promise<void>, observables: MetricObservable[]): void;
}

/** The `metrics` option of the receiver and the dispatcher. */
export interface MetricsOptions {
  /** An OpenTelemetry meter, e.g. `metrics.getMeter('acct-webhook')` from `@opentelemetry/api`. */
  meter: MetricsMeter;
}

const METER_METHODS = ['createCounter', 'createHistogram', 'createObservableGauge', 'addBatchObservableCallback', 'removeBatchObservableCallback'] as const;

export function isMeter(value: unknown): value is MetricsMeter {
  return typeof value === 'object' && value !== null && METER_METHODS.every((method) => typeof (value as Record<string, unknown>)[method] === 'function');
}
