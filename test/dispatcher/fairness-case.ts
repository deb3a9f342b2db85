import type { ServerResponse } from 'node:http';
import { expect, it, onTestFinished } from 'vitest';
import type { Dispatcher } from '../../src/dispatcher.js';
import { createTestEvent } from '../../src/testing/index.js';
import { close, eventDeliveries, listen } from '../helpers/server.js';

/** Business A's backlog: events to its one registration, all due before B's one event. */
export const BACKLOG = 20_000;
/** How long A's receiver takes per request. */
const A_RESPONSE_MS = 50;
/** Each worker's pool. */
export const CONCURRENCY = 8;

/** A receiver that answers after A_RESPONSE_MS, counting requests and those in flight; `full` resolves once `slots` are in flight at once. */
function slowReceiver(slots: number) {
  let started = 0;
  let inFlight = 0;
  let fill: () => void = () => undefined;
  const full = new Promise<void>((resolve) => (fill = resolve));
  const listener = eventDeliveries((_id, res: ServerResponse) => {
    started++;
    if (++inFlight >= slots) fill();
    setTimeout(() => {
      inFlight--;
      res.writeHead(204).end();
    }, A_RESPONSE_MS);
  });
  return { listener, full, started: () => started };
}

/**
 * One business cannot starve another: business A has BACKLOG deliveries due to its one
 * registration, whose receiver takes 50 ms a request, and every slot of every worker is busy
 * with them; then business B emits one event. B's delivery must be claimed at the next free
 * slot, not after A's backlog: the barrier is A's receiver holding every slot, and the measure
 * is how many more of A's requests arrive before B's (a count, not a time).
 */
export function starvationCase(workers: number, open: () => Dispatcher): void {
  it(`${workers} worker(s): B's one delivery goes out at the next free slot while A's ${BACKLOG} wait`, async () => {
    const slots = workers * CONCURRENCY;
    const a = slowReceiver(slots);
    const aServer = await listen(a.listener);
    onTestFinished(() => close(aServer.server));
    let startedBeforeB = -1;
    let arrived: () => void = () => undefined;
    const bArrived = new Promise<void>((resolve) => (arrived = resolve));
    const bServer = await listen(
      eventDeliveries((_id, res) => {
        startedBeforeB = a.started();
        arrived();
        res.writeHead(204).end();
      }),
    );
    onTestFinished(() => close(bServer.server));

    const dispatchers = Array.from({ length: workers }, open);
    const [first] = dispatchers;
    await first!.webhooks.create({ business_id: 'biz_a', url: `${aServer.url}/a`, events: ['invoice.paid'] });
    await first!.webhooks.create({ business_id: 'biz_b', url: `${bServer.url}/b`, events: ['invoice.paid'] });
    for (let i = 0; i < BACKLOG; i += 200) {
      await Promise.all(Array.from({ length: 200 }, () => first!.emit(createTestEvent('invoice.paid', { business_id: 'biz_a' }))));
    }
    await Promise.all(dispatchers.map((dispatcher) => dispatcher.start()));
    await a.full;

    const startedAtEmit = a.started();
    await first!.emit(createTestEvent('invoice.paid', { business_id: 'biz_b' }));
    await bArrived;
    // At most the slots claimed before B's event was stored, and a few freed meanwhile: far from the backlog.
    expect(startedBeforeB - startedAtEmit).toBeLessThanOrEqual(4 * slots);
    expect(startedBeforeB).toBeLessThan(BACKLOG / 4);
    await Promise.all(dispatchers.map((dispatcher) => dispatcher.stop()));
  });
}
