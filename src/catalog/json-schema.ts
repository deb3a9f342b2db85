import { z } from 'zod';
import { EVENT_CATALOG, EVENT_GROUPS, EVENT_TYPES, type EventType } from '../events/catalog.js';
import { EVENT_DOCS } from '../events/docs.js';
import { EVENT_SCHEMAS } from '../events/schemas.js';
import { isJsonObject, type JsonObject } from './json.js';
import { catalogExample } from './samples.js';

/** The JSON Schema dialect of every schema in the catalog (OpenAPI 3.1's own). */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';
/** The file of the union of all types, beside the files of the types. */
export const UNION_SCHEMA_FILE = 'event.json';

/**
 * Where a release's schema files are served: the npm package's own files on jsDelivr. Their
 * `$id`s are these URLs, one set per version, so a schema's id never names two contents.
 */
export function schemaBaseUrl(version: string): string {
  return `https://cdn.jsdelivr.net/npm/acct-webhook@${version}/schemas/json-schema/`;
}

/** When the platform emits an event, as its document says it: `Payment is received.` */
export function whenEmitted(type: EventType): string {
  const { emittedWhen } = EVENT_CATALOG[type];
  return `${emittedWhen.charAt(0).toUpperCase()}${emittedWhen.slice(1)}.`;
}

/** What an event's schema says of it, besides {@link VALIDATION_NOTES}: `invoice.paid (Invoices). Payment is received.` */
export function eventDescription(type: EventType): string {
  return `${type} (${EVENT_GROUPS[EVENT_CATALOG[type].group].title}). ${whenEmitted(type)}`;
}

export function schemaFileOf(type: EventType): string {
  return `${type}.json`;
}

/**
 * Where JSON Schema and the parser part: said in every schema's description, and named by the
 * differential test (test/catalog/differential.test.ts), which checks that nothing else differs.
 */
export const VALIDATION_NOTES =
  'Objects accept fields not listed here: the platform may add fields at any time; ignore the ones you do not know. ' +
  "One check of acct-webhook's parser is not stated here: it refuses a payload with the key __proto__, or a " +
  'constructor object holding prototype, anywhere (JavaScript code merging objects would take them for its own ' +
  'prototype); this schema accepts them among unlisted fields.';

/**
 * `format` values left out of the schemas: zod checks e-mail addresses with its pattern (which
 * the schema keeps), and the `email` format of validators that assert formats (ajv-formats) is
 * stricter than that pattern (a domain label ending in `-`), so a schema carrying it would refuse
 * events the parser accepts. `date-time` and `date` stay: zod's patterns accept less than they do.
 */
const FORMATS_LEFT_OUT: ReadonlySet<string> = new Set(['email']);

/** zod's JSON Schema of a catalog schema, with the documentation of EVENT_DOCS. */
function toJsonSchema(schema: z.ZodType): JsonObject {
  return z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    metadata: EVENT_DOCS as z.core.$ZodRegistry<Record<string, unknown>>,
    io: 'output',
    unrepresentable: 'throw',
    cycles: 'throw',
    reused: 'inline',
    override: ({ jsonSchema }) => {
      if (typeof jsonSchema.format === 'string' && FORMATS_LEFT_OUT.has(jsonSchema.format)) delete jsonSchema.format;
    },
  }) as JsonObject;
}

/** The JSON Schema of one event type: self-contained (shared parts in `$defs`), with its sample as example. */
export function eventJsonSchema(type: EventType, version: string): JsonObject {
  const entry = EVENT_CATALOG[type];
  const group = EVENT_GROUPS[entry.group];
  const { $schema: _dialect, $defs, ...schema } = toJsonSchema(EVENT_SCHEMAS[type]);
  const properties = schema.properties as JsonObject;
  describe(properties, 'type', `The event type: always ${type} in this schema.`);
  const data = properties.data as JsonObject;
  data.description = `The ${group.object} the event is about and, on updates, what changed.`;
  const dataProperties = data.properties as JsonObject;
  const object = dataProperties.object as JsonObject;
  object.description = `The ${group.object} as it is after this event. ${EVENT_DOCS.get(group.schema)?.description ?? ''}`.trim();
  inheritDescriptions(object, toJsonSchema(group.schema));
  return {
    $schema: JSON_SCHEMA_DIALECT,
    $id: `${schemaBaseUrl(version)}${schemaFileOf(type)}`,
    title: type,
    description: `${eventDescription(type)} ${VALIDATION_NOTES}`,
    ...schema,
    ...(isJsonObject($defs) ? { $defs } : {}),
    examples: [catalogExample(type) as unknown as JsonObject],
  };
}

/**
 * The union of the 18 types, as one self-contained document: the schemas of the types are
 * embedded (each under its own `$id`, exactly as in its own file), and `oneOf` refers to them by
 * those ids, so the files of the types may also be loaded one by one.
 */
export function eventUnionJsonSchema(byType: Readonly<Record<EventType, JsonObject>>, version: string): JsonObject {
  return {
    $schema: JSON_SCHEMA_DIALECT,
    $id: `${schemaBaseUrl(version)}${UNION_SCHEMA_FILE}`,
    title: 'WebhookEvent',
    description: `Any of the ${EVENT_TYPES.length} events the platform sends, told apart by \`type\`. ${VALIDATION_NOTES}`,
    oneOf: EVENT_TYPES.map((type) => ({ $ref: schemaFileOf(type) })),
    $defs: Object.fromEntries(EVENT_TYPES.map((type) => [type, byType[type]])),
  };
}

function describe(properties: JsonObject, key: string, description: string): void {
  const property = properties[key];
  if (isJsonObject(property)) property.description = description;
}

/**
 * An event narrows its object (`invoice.paid`: `status` is `paid`, `paid_at` is set); a field
 * it narrows takes the description of the same field in the object's own schema.
 */
function inheritDescriptions(narrowed: JsonObject, base: JsonObject): void {
  const baseProperties = base.properties as JsonObject;
  for (const [key, property] of Object.entries(narrowed.properties as JsonObject)) {
    const from = baseProperties[key];
    if (isJsonObject(property) && property.description === undefined && isJsonObject(from) && typeof from.description === 'string') {
      property.description = from.description;
    }
  }
}
