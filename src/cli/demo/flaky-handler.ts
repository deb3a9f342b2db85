import { EVENT_TYPES, type EventType } from '../../events/catalog.js';
import type { WebhookEvent } from '../../events/schemas.js';

/** Every this-many-th type of the catalog has its first attempt fail: three of the eighteen. */
export const FLAKY_EVERY = 6;
const FLAKY_OFFSET = 2;

/** The types whose first delivery the demo's handler refuses: a spread over the groups, from the catalog. */
export function flakyTypes(): ReadonlySet<EventType> {
  return new Set(EVENT_TYPES.filter((_, index) => index % FLAKY_EVERY === FLAKY_OFFSET));
}

/** What the demo's handler throws: a stand-in for a database that is briefly down. */
export class SimulatedOutage extends Error {
  override readonly name = 'SimulatedOutage';
}

/**
 * The demo's handler: it fails the first time it sees an event of a flaky type, so the receiver
 * answers 500 and the dispatcher retries a minute later (schedule time); every other call succeeds.
 */
export function flakyHandler(types: ReadonlySet<string>): (event: WebhookEvent) => undefined {
  const failedOnce = new Set<string>();
  return (event) => {
    if (types.has(event.type) && !failedOnce.has(event.id)) {
      failedOnce.add(event.id);
      throw new SimulatedOutage('simulated outage: this first attempt fails on purpose');
    }
    return undefined;
  };
}
