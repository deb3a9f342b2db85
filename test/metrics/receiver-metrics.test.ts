import { describe, expect, it } from 'vitest';
import { createReceiver, memoryStore, type ReceiveOutcome } from '../../src/index.js';
import { createTestEvent, signedRequest } from '../../src/testing/index.js';
import { testMeter } from './reader.js';

const SECRET = 'whsec_receiver_metrics';

describe('receiver metrics', () => {
  it('counts deliveries by outcome and status, and keeps calling the onOutcome hook', async () => {
    const { meter, points } = testMeter();
    const outcomes: string[] = [];
    const receiver = createReceiver({ secret: SECRET, store: memoryStore(), logger: false, metrics: { meter }, onOutcome: (outcome: ReceiveOutcome) => outcomes.push(outcome.outcome) });
    const event = createTestEvent('invoice.paid');
    const { body, headers } = signedRequest(event, SECRET);
    await receiver.receive({ rawBody: body, headers, method: 'POST' });
    await receiver.receive({ rawBody: body, headers, method: 'POST' });
    await receiver.receive({ rawBody: body, headers: { ...headers, 'x-svc-signature': '0'.repeat(64) }, method: 'POST' });

    const counted = (await points('acct_webhook.receiver.deliveries')).map((point) => [point.attributes, point.value]);
    expect(counted).toEqual(
      expect.arrayContaining([
        [{ outcome: 'handled', status: 200 }, 1],
        [{ outcome: 'duplicate', status: 200 }, 1],
        [{ outcome: 'rejected', status: 401 }, 1],
      ]),
    );
    expect(counted).toHaveLength(3);
    expect((await points('acct_webhook.receiver.duration')).reduce((sum, point) => sum + (point.value as { count: number }).count, 0)).toBe(3);
    expect(outcomes).toEqual(['handled', 'duplicate', 'rejected']);
  });

  it('refuses a meter that is not one, naming the option', () => {
    expect(() => createReceiver({ secret: SECRET, store: memoryStore(), metrics: { meter: {} as never } })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: { option: 'metrics.meter', reason: 'must be an OpenTelemetry Meter' } }),
    );
  });
});
