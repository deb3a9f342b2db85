import { buildEvent, type BuildEventOptions } from './build.js';
import { EVENT_CATALOG, type EventType } from './catalog.js';
import { SAMPLE_BUSINESS_ID } from './samples.js';
import type { EventMap, EventObject, PreviousAttributes } from './schemas.js';

/** The catalog's sample of one event type: its object and, for an update, what changed. Fresh copies. */
export interface CatalogSample<T extends EventType> {
  object: EventObject<T>;
  previous_attributes?: PreviousAttributes<T>;
}

/**
 * The catalog's sample object of `type` (and its previous attributes), typed for `type`.
 *
 * The one cast of the samples: indexed by a type parameter, `EVENT_CATALOG[type]` is the union of
 * every entry, so TypeScript cannot tie its sample to `T`. Each entry's `define()` checks its
 * sample against its own schema, and test/events/sample-event.test.ts parses every sample event.
 */
export function catalogSample<T extends EventType>(type: T): CatalogSample<T> {
  const entry = EVENT_CATALOG[type];
  const object = structuredClone(entry.sample) as EventObject<T>;
  if (!('previousAttributes' in entry)) return { object };
  return { object, previous_attributes: structuredClone(entry.previousAttributes) as PreviousAttributes<T> };
}

/** What {@link sampleEvent} takes besides the type: the envelope's fields, all optional. */
export type SampleEventOptions<T extends EventType> = Partial<Omit<BuildEventOptions<T>, 'previous_attributes'>>;

/**
 * The catalog's sample of `type` as a whole event: Austrian sample data, the sample business, a
 * new `evt_…` id and `created` now unless `options` say otherwise.
 */
export function sampleEvent<T extends EventType>(type: T, options: SampleEventOptions<T> = {}): EventMap[T] {
  const { object, previous_attributes } = catalogSample(type);
  return buildEvent(type, object, {
    business_id: SAMPLE_BUSINESS_ID,
    ...(previous_attributes === undefined ? {} : { previous_attributes }),
    ...options,
  });
}
