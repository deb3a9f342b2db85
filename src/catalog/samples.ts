import { buildEvent } from '../events/build.js';
import { EVENT_CATALOG, type EventType } from '../events/catalog.js';
import { dateTime } from '../events/fields.js';
import { SAMPLE_BUSINESS_ID } from '../events/samples.js';
import type { WebhookEvent } from '../events/schemas.js';

/**
 * The catalog's sample of an event type as a whole event, the same in every build: the published
 * documents carry it as their example. Its `created` is the latest time in the sample object
 * (the event happens when its object last changed); its ids name the type.
 */
export function sampleEvent(type: EventType): WebhookEvent {
  const entry = EVENT_CATALOG[type];
  const name = type.replace('.', '_');
  return buildEvent(type, structuredClone(entry.sample) as never, {
    id: `evt_sample_${name}`,
    correlation_id: `cor_sample_${name}`,
    business_id: SAMPLE_BUSINESS_ID,
    now: latestTime(entry.sample),
    ...('previousAttributes' in entry ? { previous_attributes: structuredClone(entry.previousAttributes) } : {}),
  });
}

function latestTime(value: unknown): number {
  if (typeof value === 'string') return dateTime.safeParse(value).success ? Date.parse(value) : 0;
  if (typeof value !== 'object' || value === null) return 0;
  return Math.max(0, ...Object.values(value).map(latestTime));
}
