import { describe, expect, it } from 'vitest';
import type { DispatcherOptions } from '../../src/dispatcher.js';
import { createTestEvent } from '../../src/testing/index.js';
import { close, listen, type RunningServer } from '../helpers/server.js';
import { Receiver, testDispatcher } from './fixtures.js';

const EVENTS = 60;
/** Short, so that the hanging attempts end soon after the measurement (close() waits for them). */
const TIMEOUT_MS = 1_000;
const ROUNDS = 3;

/** Receivers on loopback: one that answers 204 at once, `hanging` that accept the request and never answer. */
async function receivers(hanging: number): Promise<{ healthy: RunningServer; hangers: RunningServer[]; closeAll: () => Promise<void> }> {
  const healthy = await listen(new Receiver(() => 204).listener);
  const hangers = await Promise.all(Array.from({ length: hanging }, () => listen(new Receiver(() => 'hang').listener)));
  return { healthy, hangers, closeAll: async () => void (await Promise.all([healthy, ...hangers].map((running) => close(running.server)))) };
}

/**
 * Milliseconds from start() until the healthy registration's EVENTS deliveries are all recorded
 * as delivered, with `hanging` registrations that never answer subscribed to the same events.
 */
async function healthyFinish(hanging: number, options: DispatcherOptions = {}): Promise<number> {
  const { healthy, hangers, closeAll } = await receivers(hanging);
  try {
    let delivered = 0;
    let done: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const dispatcher = testDispatcher({
      timeoutMs: TIMEOUT_MS,
      ...options,
      onAttempt: ({ attempt }) => {
        if (attempt.url.startsWith(healthy.url) && attempt.error_kind === null && ++delivered === EVENTS) done();
      },
    });
    await dispatcher.webhooks.create({ url: `${healthy.url}/webhooks`, events: ['*'] });
    for (const hanger of hangers) await dispatcher.webhooks.create({ url: `${hanger.url}/webhooks`, events: ['*'] });
    for (let i = 0; i < EVENTS; i++) await dispatcher.emit(createTestEvent('invoice.paid'));
    const started = performance.now();
    await dispatcher.start();
    await finished;
    const elapsed = performance.now() - started;
    await dispatcher.close();
    return elapsed;
  } finally {
    await closeAll();
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Alone and beside `hanging` hanging registrations, interleaved round by round; the medians. */
async function sideBySide(hanging: number, options: DispatcherOptions = {}): Promise<{ alone: number; beside: number }> {
  const alone: number[] = [];
  const beside: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    alone.push(await healthyFinish(0, options));
    beside.push(await healthyFinish(hanging, options));
  }
  return { alone: median(alone), beside: median(beside) };
}

describe('isolation: receivers that never answer do not hold up a healthy one (real loopback servers, SQLite)', () => {
  it('with the default caps, 60 deliveries to a healthy receiver beside 3 that hang finish within 2× the time they take alone', async () => {
    const { alone, beside } = await sideBySide(3);
    expect(beside).toBeLessThanOrEqual(2 * alone);
  });

  it('a registration at its cap gets no more slots, however many of its deliveries are due (maxInFlightPerWebhook: 2)', async () => {
    const { alone, beside } = await sideBySide(3, { maxInFlightPerWebhook: 2 });
    expect(beside).toBeLessThanOrEqual(2 * alone);
  });
});
