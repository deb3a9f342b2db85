import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { catalogDocuments } from '../../src/catalog/index.js';
import { installedVersion } from '../../src/catalog/version.js';
import { DEFAULT_SANDBOX_URL } from '../../src/cli/sandbox-options.js';
import { EVENT_CATALOG, EVENT_GROUPS } from '../../src/events/catalog.js';
import { ConfigurationError, EVENT_TYPES, parseEvent } from '../../src/index.js';

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;
const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
const documents = catalogDocuments();

type Operation = {
  operationId: string;
  tags: string[];
  parameters: { $ref: string }[];
  responses: Record<string, unknown>;
  requestBody: { content: Record<string, { schema: { $ref: string }; examples: { sample: { value: unknown } } }> };
};
const webhooks = documents.openapi.webhooks as unknown as Record<string, { post: Operation }>;

describe('catalogDocuments', () => {
  it("carries the installed package's version, in info.version and in the JSON Schemas' $ids", () => {
    expect(installedVersion()).toBe(version);
    expect((documents.openapi.info as { version: string }).version).toBe(version);
    expect((documents.asyncapi.info as { version: string }).version).toBe(version);
    expect(documents.jsonSchema.types['invoice.paid'].$id).toBe(`https://cdn.jsdelivr.net/npm/acct-webhook@${version}/schemas/json-schema/invoice.paid.json`);
    expect((catalogDocuments({ version: '2.0.0-rc.1' }).openapi.info as { version: string }).version).toBe('2.0.0-rc.1');
  });

  it.each([
    ['an unknown option', { versoin: '1.0.0' }, 'versoin'],
    ['a version that is not one', { version: 'latest' }, 'version'],
  ])('refuses %s with INVALID_CONFIGURATION', (_case, options, option) => {
    expect(() => catalogDocuments(options as never)).toThrow(ConfigurationError);
    try {
      catalogDocuments(options as never);
    } catch (error) {
      expect((error as ConfigurationError).details).toMatchObject({ option });
    }
  });

  it('describes the 18 types as OpenAPI webhooks: a POST each, tagged by group, with both headers and the 2xx, 4xx and 5xx answers', () => {
    expect(documents.openapi.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(webhooks)).toEqual(EVENT_TYPES);
    for (const type of EVENT_TYPES) {
      const { post } = webhooks[type]!;
      expect(post.tags).toEqual([EVENT_GROUPS[EVENT_CATALOG[type].group].title]);
      expect(post.parameters).toEqual([{ $ref: '#/components/parameters/Signature' }, { $ref: '#/components/parameters/Timestamp' }]);
      expect(Object.keys(post.responses)).toEqual(['2XX', '4XX', '5XX']);
    }
    expect(new Set(EVENT_TYPES.map((type) => webhooks[type]!.post.operationId)).size).toBe(18);
  });

  it("names the API's roots as its servers, each defaulting to the sandbox the CLI starts with its defaults", () => {
    const servers = documents.openapi.servers as { url: string; variables: Record<string, { default: string }> }[];
    expect(servers.map((server) => server.url)).toEqual(['{sandbox_url}', '{base_url}']);
    for (const server of servers) {
      expect(`${Object.values(server.variables)[0]!.default}/v1`).toBe(DEFAULT_SANDBOX_URL);
    }
  });

  it('describes them as AsyncAPI 3.0: one channel, one receive operation, a message per type with its headers and payload', () => {
    expect(documents.asyncapi.asyncapi).toBe('3.0.0');
    const operations = documents.asyncapi.operations as Record<string, { action: string; messages: unknown[] }>;
    expect(Object.values(operations).map((operation) => [operation.action, operation.messages.length])).toEqual([['receive', 18]]);
    const messages = (documents.asyncapi.components as { messages: Record<string, { name: string; headers: unknown; payload: unknown }> }).messages;
    expect(Object.values(messages).map((message) => message.name)).toEqual(EVENT_TYPES);
    for (const message of Object.values(messages)) expect(message.headers).toEqual({ $ref: '#/components/schemas/DeliveryHeaders' });
  });

  it('embeds in the union schema exactly the schema of each type, referred to by its $id', () => {
    const union = documents.jsonSchema.event;
    expect(union.oneOf).toEqual(EVENT_TYPES.map((type) => ({ $ref: `${type}.json` })));
    expect(union.$defs).toEqual(documents.jsonSchema.types);
  });

  it("gives every type its catalog sample as example, and the sample passes parseEvent and the type's schema", () => {
    const ajv = addFormats(new Ajv2020({ strict: true }));
    for (const type of EVENT_TYPES) {
      const schema = documents.jsonSchema.types[type];
      const [example] = schema.examples as unknown[];
      expect(parseEvent(JSON.stringify(example)).type).toBe(type);
      expect(ajv.compile(schema)(example)).toBe(true);
      expect(webhooks[type]!.post.requestBody.content['application/json']!.examples.sample.value).toEqual(example);
      expect((example as { data: { object: unknown } }).data.object).toEqual(EVENT_CATALOG[type].sample);
    }
  });

  it('documents every field of every event', () => {
    const undocumented: string[] = [];
    const visit = (schema: unknown, path: string): void => {
      if (typeof schema !== 'object' || schema === null) return;
      const { properties } = schema as { properties?: Record<string, { description?: string }> };
      for (const [key, property] of Object.entries(properties ?? {})) {
        if (typeof property.description !== 'string' && !('$ref' in property)) undocumented.push(`${path}.${key}`);
        visit(property, `${path}.${key}`);
      }
      for (const branch of (schema as { anyOf?: unknown[] }).anyOf ?? []) visit(branch, path);
    };
    for (const type of EVENT_TYPES) {
      const { $defs, ...schema } = documents.jsonSchema.types[type];
      visit(schema, type);
      for (const [name, definition] of Object.entries($defs as object)) {
        visit(definition, `${type}#${name}`);
        expect(typeof (definition as { description?: unknown }).description, name).toBe('string');
      }
    }
    expect(undocumented).toEqual([]);
  });
});
