import { EVENT_TABLE, type EventType } from './validators.generated.js';

/*
 * The event types without their schemas: what the receiver's request path needs (is this a type
 * we know, which types a pattern selects, an event's object and stage), without loading zod.
 * They come from the catalog (src/events/catalog.ts, the one source) through the generated file,
 * which test/events/validators.test.ts keeps equal to what the catalog generates.
 */

export type { EventType };

/** All event types, in the order of the platform's document. */
export const EVENT_TYPES = Object.freeze(Object.keys(EVENT_TABLE)) as readonly EventType[];

/** `invoice`, `customer`, … : the part of an event type before the dot. */
export type EventPrefix = EventType extends `${infer Prefix}.${string}` ? Prefix : never;

/** An event type, all types of one prefix (`invoice.*`), or every type (`*`). */
export type EventPattern = EventType | `${EventPrefix}.*` | '*';

/**
 * Is `value` one of the 18 event types this version knows?
 * @example
 * if (isEventType(body.type)) console.log(`known: ${body.type}`);
 */
export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && Object.hasOwn(EVENT_TABLE, value);
}

/** The event types a pattern selects; an empty list for a pattern that selects none. */
export function expandEventPattern(pattern: string): EventType[] {
  if (pattern === '*') return [...EVENT_TYPES];
  if (pattern.endsWith('.*')) {
    const prefix = pattern.slice(0, -1);
    return EVENT_TYPES.filter((type) => type.startsWith(prefix));
  }
  return isEventType(pattern) ? [pattern] : [];
}

export function isEventPattern(value: unknown): value is EventPattern {
  return typeof value === 'string' && expandEventPattern(value).length > 0;
}

/** The object an event type's events carry (`invoice`), its stage in that object's life, and whether it is the creation event. */
export function eventTypeInfo(type: EventType): { readonly object: string; readonly stage: number; readonly creation?: true } {
  return EVENT_TABLE[type];
}
