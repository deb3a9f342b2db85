import { EVENT_CATALOG, EVENT_GROUPS, EVENT_TYPES, type EventType } from '../events/catalog.js';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../signing/signature.js';
import { componentNameOf, componentSchemas } from './components.js';
import { DELIVERY_DESCRIPTION, RESPONSES, SIGNATURE_DESCRIPTION, SIGNATURE_PATTERN, TIMESTAMP_DESCRIPTION, TIMESTAMP_PATTERN } from './contract.js';
import { VALIDATION_NOTES, whenEmitted } from './json-schema.js';
import type { JsonObject } from './json.js';
import { CATALOG_TITLE, operationIdOf } from './openapi.js';
import { catalogExample } from './samples.js';

export const ASYNCAPI_VERSION = '3.0.0';
const CHANNEL = 'webhooks';
const HEADERS_SCHEMA = 'DeliveryHeaders';

/**
 * The AsyncAPI 3.0 document, from the receiver's side: one channel (the URL registered for the
 * webhook), one `receive` operation, one message per event type with its payload and headers.
 */
export function asyncApiDocument(byType: Readonly<Record<EventType, JsonObject>>, version: string): JsonObject {
  const messages: JsonObject = {};
  const channelMessages: JsonObject = {};
  for (const type of EVENT_TYPES) {
    const entry = EVENT_CATALOG[type];
    const name = operationIdOf(type);
    messages[name] = {
      name: type,
      title: type,
      summary: whenEmitted(type),
      contentType: 'application/json',
      tags: [{ name: EVENT_GROUPS[entry.group].title }],
      headers: { $ref: `#/components/schemas/${HEADERS_SCHEMA}` },
      payload: { $ref: `#/components/schemas/${componentNameOf(type)}` },
      examples: [{ name: 'sample', summary: `A sample ${type} event`, payload: catalogExample(type) as unknown as JsonObject }],
    };
    channelMessages[name] = { $ref: `#/components/messages/${name}` };
  }
  const answers = Object.values(RESPONSES)
    .map(({ range, description }) => `${range}: ${description}`)
    .join('\n\n');
  return {
    asyncapi: ASYNCAPI_VERSION,
    info: {
      title: CATALOG_TITLE,
      version,
      description: `${DELIVERY_DESCRIPTION}\n\n${VALIDATION_NOTES}`,
      license: { name: 'MIT', url: 'https://opensource.org/license/mit' },
    },
    defaultContentType: 'application/json',
    channels: {
      [CHANNEL]: {
        address: null,
        title: 'The webhook URL',
        description: "The HTTPS URL registered for the webhook: the receiver's endpoint. Every event type arrives there.",
        messages: channelMessages,
      },
    },
    operations: {
      receiveEvent: {
        action: 'receive',
        channel: { $ref: `#/channels/${CHANNEL}` },
        title: 'Receive an event',
        summary: 'The platform POSTs an event; the receiver verifies it, handles it and answers.',
        description: `What the receiver answers, and what the sender does with each answer:\n\n${answers}`,
        bindings: { http: { method: 'POST', bindingVersion: '0.3.0' } },
        messages: EVENT_TYPES.map((type) => ({ $ref: `#/channels/${CHANNEL}/messages/${operationIdOf(type)}` })),
      },
    },
    components: {
      schemas: {
        [HEADERS_SCHEMA]: {
          type: 'object',
          description: 'The headers that come with every delivery (besides content-type: application/json).',
          properties: {
            [SIGNATURE_HEADER]: { type: 'string', pattern: SIGNATURE_PATTERN, description: SIGNATURE_DESCRIPTION },
            [TIMESTAMP_HEADER]: { type: 'string', pattern: TIMESTAMP_PATTERN, description: TIMESTAMP_DESCRIPTION },
          },
          required: [SIGNATURE_HEADER, TIMESTAMP_HEADER],
        },
        ...componentSchemas(byType, '#/components/schemas/'),
      },
      messages,
    },
  };
}
