import { z } from 'zod';
import { parseOptions } from '../kernel/configuration.js';
import { EVENT_TYPES, type EventType } from '../events/catalog.js';
import { ConfigurationError } from '../kernel/errors.js';
import { asyncApiDocument } from './asyncapi.js';
import { eventJsonSchema, eventUnionJsonSchema } from './json-schema.js';
import type { JsonObject } from './json.js';
import { openApiDocument } from './openapi.js';
import { installedVersion } from './version.js';

/** The options of {@link catalogDocuments}. */
export interface CatalogOptions {
  /**
   * The version the documents carry (`info.version`, the version in the JSON Schemas' `$id`s).
   * @default the version of the installed acct-webhook package
   */
  version?: string;
}

/** The event catalog as documents for other languages and tools, all generated from the schemas `parseEvent` runs. */
export interface CatalogDocuments {
  /** OpenAPI 3.1: a `webhooks` entry per event type, the schemas in `components`. */
  openapi: JsonObject;
  /** AsyncAPI 3.0: one channel, one `receive` operation, a message per event type. */
  asyncapi: JsonObject;
  /** JSON Schema 2020-12. */
  jsonSchema: {
    /** The union of all types (`event.json`): one self-contained document that embeds the schema of each type. */
    event: JsonObject;
    /** The schema of each type (`invoice.paid.json` …), each self-contained. */
    types: Record<EventType, JsonObject>;
  };
}

const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

const catalogOptions = z.strictObject({
  version: z.string().regex(SEMVER, 'must be a version such as 1.2.0').optional(),
});

/**
 * The event catalog as OpenAPI 3.1, AsyncAPI 3.0 and JSON Schema 2020-12 documents, generated
 * from the schemas `parseEvent` validates with: the 18 types, their descriptions and samples.
 * The same documents ship in the package (`acct-webhook/schemas/…`) and come out of
 * `acct-webhook catalog`.
 *
 * @example
 * import { catalogDocuments } from 'acct-webhook/catalog';
 * const { openapi, jsonSchema } = catalogDocuments();
 * console.log(Object.keys(openapi.webhooks as object).length, jsonSchema.types['invoice.paid'].$id);
 */
export function catalogDocuments(options: CatalogOptions = {}): CatalogDocuments {
  const valid = parseOptions(catalogOptions, options, 'catalogDocuments');
  const version = valid.version ?? installedVersion();
  if (version === undefined) {
    throw new ConfigurationError(
      { option: 'version', reason: "is required where acct-webhook's package.json cannot be read (a bundled application)" },
      "catalogDocuments: give the version: acct-webhook's package.json cannot be read here",
    );
  }
  const types = Object.fromEntries(EVENT_TYPES.map((type) => [type, eventJsonSchema(type, version)])) as Record<EventType, JsonObject>;
  return {
    openapi: openApiDocument(types, version),
    asyncapi: asyncApiDocument(types, version),
    jsonSchema: { event: eventUnionJsonSchema(types, version), types },
  };
}
