import type { EventType } from '../events/catalog.js';
import { dateTime } from '../events/fields.js';
import { catalogSample, sampleEvent } from '../events/sample-event.js';
import type { WebhookEvent } from '../events/schemas.js';

/**
 * The catalog's sample of an event type as a whole event, the same in every build: the published
 * documents carry it as their example. Its `created` is the latest time in the sample object
 * (the event happens when its object last changed); its ids name the type.
 */
export function catalogExample(type: EventType): WebhookEvent {
  const name = type.replace('.', '_');
  return sampleEvent(type, { id: `evt_sample_${name}`, correlation_id: `cor_sample_${name}`, now: latestTime(catalogSample(type).object) });
}

function latestTime(value: unknown): number {
  if (typeof value === 'string') return dateTime.safeParse(value).success ? Date.parse(value) : 0;
  if (typeof value !== 'object' || value === null) return 0;
  return Math.max(0, ...Object.values(value).map(latestTime));
}
