import type { EventType } from '../events/catalog.js';
import type { WebhookEvent } from '../events/schemas.js';
import { sampleEvent } from '../events/sample-event.js';
import { applySetValues } from './set-values.js';

/**
 * The catalog's sample of `type` as an event to emit: a real `evt_…` id (not the test kit's
 * `evt_test_…`), `created` now, then the `--set` values — which may make it invalid: the
 * dispatcher validates what it emits.
 */
export function sampleWithSets(type: EventType, sets: readonly string[]): WebhookEvent {
  return applySetValues(sampleEvent(type), sets);
}
