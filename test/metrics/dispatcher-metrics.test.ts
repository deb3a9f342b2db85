import { describe, expect, it } from 'vitest';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import { createTestEvent } from '../../src/testing/index.js';
import { withServer } from '../helpers/server.js';
import { clockedDispatcher, MINUTE, Receiver } from '../dispatcher/fixtures.js';
import { testMeter } from './reader.js';

describe('dispatcher metrics', () => {
  it('measures emit → delivered through the retries, on the injected clock, and reads the queue at collection', async () => {
    const { meter, points } = testMeter();
    let answers = 0;
    await withServer(new Receiver(() => (answers++ === 0 ? 500 : 204)).listener, async (url) => {
      const { dispatcher, clock } = clockedDispatcher({ metrics: { meter } });
      await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.emit(createTestEvent('invoice.paid'));
      expect((await points('acct_webhook.dispatcher.queue.depth')).find((point) => point.attributes.state === 'due')?.value).toBe(1);
      clock.advance(30_000);
      expect((await points('acct_webhook.dispatcher.queue.oldest_due_age'))[0]?.value).toBe(30);
      await dispatcher.runDue();
      clock.advance(MINUTE);
      await dispatcher.runDue();

      const attempts = (await points('acct_webhook.dispatcher.attempts')).map((point) => [point.attributes, point.value]);
      expect(attempts).toEqual(
        expect.arrayContaining([
          [{ outcome: 'failed', status_class: '5xx' }, 1],
          [{ outcome: 'delivered', status_class: '2xx' }, 1],
        ]),
      );
      const [latency] = await points('acct_webhook.dispatcher.delivery.latency');
      const histogram = latency!.value as Histogram;
      expect(histogram.count).toBe(1);
      // 30 s late, then a minute for the retry; the attempts' own wall time is added (a few ms).
      expect(histogram.sum).toBeGreaterThanOrEqual(90);
      expect(histogram.sum).toBeLessThan(91);
      expect((await points('acct_webhook.dispatcher.queue.depth')).map((point) => point.value)).toEqual([0, 0, 0, 0]);
    });
  });

  it('stops reading the store at collections once the dispatcher is closed', async () => {
    const { meter, points, errors } = testMeter();
    const { dispatcher } = clockedDispatcher({ metrics: { meter } });
    expect(await points('acct_webhook.dispatcher.webhooks')).toHaveLength(3);
    await dispatcher.close();
    // A callback left behind would ask a closed dispatcher (DISPATCHER_CLOSED) at every scrape.
    expect(await errors()).toEqual([]);
  });
});
