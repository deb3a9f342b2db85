import type { Meter } from '@opentelemetry/api';
import { describe, expectTypeOf, it } from 'vitest';
import type { MetricsMeter } from '../../src/index.js';

describe('MetricsMeter', () => {
  it('an OpenTelemetry Meter fits it as it is', () => {
    expectTypeOf<Meter>().toExtend<MetricsMeter>();
  });
});
