import { EVENT_TYPES, type EventType } from '../events/catalog.js';
import { eventDescription } from './json-schema.js';
import { isJsonObject, mapRefs, type JsonObject } from './json.js';

/** `invoice.paid` → `InvoicePaidEvent`: the name of an event's schema among a document's components. */
export function componentNameOf(type: EventType): string {
  return `${type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}Event`;
}

/**
 * The 18 JSON Schemas as the components of one document (OpenAPI, AsyncAPI): each event's schema
 * under its component name, and the shared schemas each one defines in `$defs` once beside them,
 * every reference pointing into `prefix` (`#/components/schemas/`). What only a schema file
 * needs (`$schema`, `$id`, its examples, the notes on validation) is left out: the documents
 * carry examples their own way, and the notes once in their `info`.
 */
export function componentSchemas(byType: Readonly<Record<EventType, JsonObject>>, prefix: string): JsonObject {
  const events: JsonObject = {};
  const shared: JsonObject = {};
  const rewrite = (ref: string): string => (ref.startsWith('#/$defs/') ? `${prefix}${ref.slice('#/$defs/'.length)}` : ref);
  for (const type of EVENT_TYPES) {
    const { $schema: _dialect, $id: _id, examples: _examples, $defs, ...schema } = byType[type];
    // The notes on validation are said once, in the document's info.
    events[componentNameOf(type)] = mapRefs({ ...schema, description: eventDescription(type) }, rewrite);
    for (const [name, definition] of Object.entries(isJsonObject($defs) ? $defs : {})) {
      const hoisted = mapRefs(definition, rewrite);
      if (name in events || (name in shared && JSON.stringify(shared[name]) !== JSON.stringify(hoisted))) {
        throw new Error(`Two different schemas are named ${name}`);
      }
      shared[name] = hoisted;
    }
  }
  const sortedShared = Object.fromEntries(Object.entries(shared).sort(([a], [b]) => a.localeCompare(b)));
  return { ...events, ...sortedShared };
}
