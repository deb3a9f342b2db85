import { EVENT_CATALOG, EVENT_GROUPS, EVENT_TYPES, type EventType } from '../events/catalog.js';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../signing/signature.js';
import { componentNameOf, componentSchemas } from './components.js';
import {
  API_SERVERS,
  DELIVERY_DESCRIPTION,
  RESPONSES,
  SIGNATURE_DESCRIPTION,
  SIGNATURE_PATTERN,
  TIMESTAMP_DESCRIPTION,
  TIMESTAMP_PATTERN,
} from './contract.js';
import { VALIDATION_NOTES, whenEmitted } from './json-schema.js';
import type { JsonObject } from './json.js';
import { catalogExample } from './samples.js';

export const OPENAPI_VERSION = '3.1.1';
export const CATALOG_TITLE = 'Accounting platform webhooks';

/** `invoice.paid` → `invoicePaid`. */
export function operationIdOf(type: EventType): string {
  return type.replace(/[._]([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

/**
 * The OpenAPI 3.1 document: a `webhooks` entry per event type (a POST with the signature
 * headers, the event as the body, the answers a receiver gives and what the sender does with
 * each), the event schemas as components.
 */
export function openApiDocument(byType: Readonly<Record<EventType, JsonObject>>, version: string): JsonObject {
  const webhooks: JsonObject = {};
  for (const type of EVENT_TYPES) {
    const entry = EVENT_CATALOG[type];
    webhooks[type] = {
      post: {
        operationId: operationIdOf(type),
        summary: type,
        description: whenEmitted(type),
        tags: [EVENT_GROUPS[entry.group].title],
        parameters: [{ $ref: '#/components/parameters/Signature' }, { $ref: '#/components/parameters/Timestamp' }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { $ref: `#/components/schemas/${componentNameOf(type)}` },
              examples: { sample: { summary: `A sample ${type} event`, value: catalogExample(type) as unknown as JsonObject } },
            },
          },
        },
        responses: Object.fromEntries(Object.values(RESPONSES).map(({ range }) => [range, { $ref: `#/components/responses/${range}` }])),
        // The signature is a header the receiver checks itself, not an HTTP authentication scheme.
        security: [],
      },
    };
  }
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: CATALOG_TITLE,
      version,
      summary: `The ${EVENT_TYPES.length} webhook events of the accounting platform, as acct-webhook ${version} parses them.`,
      description: `${DELIVERY_DESCRIPTION}\n\n${VALIDATION_NOTES}`,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // Where the platform's API is, and so where the webhooks come from: registrations are made there.
    servers: structuredClone(API_SERVERS) as unknown as JsonObject[],
    tags: Object.entries(EVENT_GROUPS).map(([key, group]) => ({
      name: group.title,
      description: `Events of the ${group.object} object: ${EVENT_TYPES.filter((type) => EVENT_CATALOG[type].group === key).join(', ')}.`,
    })),
    webhooks,
    components: {
      schemas: componentSchemas(byType, '#/components/schemas/'),
      parameters: {
        Signature: headerParameter(SIGNATURE_HEADER, SIGNATURE_DESCRIPTION, SIGNATURE_PATTERN),
        Timestamp: headerParameter(TIMESTAMP_HEADER, TIMESTAMP_DESCRIPTION, TIMESTAMP_PATTERN),
      },
      responses: Object.fromEntries(Object.values(RESPONSES).map(({ range, description }) => [range, { description }])),
    },
  };
}

function headerParameter(name: string, description: string, pattern: string): JsonObject {
  return { name, in: 'header', required: true, description, schema: { type: 'string', pattern } };
}
