import { z } from 'zod';
import { EVENT_CATALOG, EVENT_GROUPS, EVENT_TYPES, type EventType } from './catalog.js';
import { documented } from './docs.js';
import { apiVersion, dateTime, id, record } from './fields.js';

/** The envelope fields every event carries besides `type` and `data`. */
const envelopeShape = {
  id: documented(id, 'Unique event id (evt_…): the idempotence key. The same event may be delivered more than once, always with the same id.'),
  created: documented(dateTime, 'When the event happened on the platform.'),
  api_version: apiVersion,
  business_id: documented(id, 'The business (the platform account) the event belongs to.'),
  correlation_id: documented(id, 'Ties together the events one action caused, for tracing.'),
};

type Catalog = typeof EVENT_CATALOG;
type ObjectSchemaOf<T extends EventType> = Catalog[T]['object'];
type PreviousAttributesSchemaOf<T extends EventType> = ReturnType<
  (typeof EVENT_GROUPS)[Catalog[T]['group']]['schema']['partial']
>;

function eventSchema<T extends EventType>(type: T) {
  const entry = EVENT_CATALOG[type];
  const previous = EVENT_GROUPS[entry.group].schema.partial() as PreviousAttributesSchemaOf<T>;
  return record({
    ...envelopeShape,
    type: z.literal(type),
    data: record({
      // The cast keeps the schema tied to T; without it, TypeScript widens it to the union of all 18.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
      object: entry.object as ObjectSchemaOf<T>,
      previous_attributes: documented(previous.optional(), 'Earlier values of the fields that changed; present on updates.'),
    }),
  });
}

export type EventSchema<T extends EventType> = ReturnType<typeof eventSchema<T>>;

/** The zod schema of each event type, by type. */
export const EVENT_SCHEMAS = Object.freeze(
  Object.fromEntries(EVENT_TYPES.map((type) => [type, eventSchema(type)])),
) as { readonly [T in EventType]: EventSchema<T> };

/** Event type → the typed event. Drives the typing of handlers: `EventMap['invoice.paid']`. */
export type EventMap = { [T in EventType]: z.output<EventSchema<T>> };

/** A verified, parsed event; `WebhookEvent<'invoice.paid'>`, or the union of all 18. */
export type WebhookEvent<T extends EventType = EventType> = EventMap[T];

/** The `data.object` of an event type. */
export type EventObject<T extends EventType> = z.output<ObjectSchemaOf<T>>;
/** The `data.previous_attributes` of an event type: earlier values of the object's fields. */
export type PreviousAttributes<T extends EventType> = z.output<PreviousAttributesSchemaOf<T>>;

/** The same 18 schemas as one discriminated union on `type`. */
export const webhookEventSchema = z.discriminatedUnion(
  'type',
  EVENT_TYPES.map((type) => EVENT_SCHEMAS[type]) as unknown as [EventSchema<EventType>, ...EventSchema<EventType>[]],
);
