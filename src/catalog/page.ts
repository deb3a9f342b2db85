import { isJsonObject, type JsonObject, type JsonValue } from './json.js';

/*
 * The part of docs/event-catalog.md generated from the OpenAPI document: its webhooks, headers,
 * answers and shared schemas as Markdown tables, with links to the shipped schema files. Read
 * from the document itself, so the page shows what the document holds.
 */

/** Where the page links the shipped files, relative to docs/. */
const SCHEMAS_FROM_DOCS = '../schemas';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n+/g, ' ');
}

function objectAt(value: JsonObject, ...path: string[]): JsonObject {
  let node: JsonObject = value;
  for (const key of path) {
    const next = node[key];
    if (!isJsonObject(next)) throw new Error(`The OpenAPI document has no object at ${path.join('.')}`);
    node = next;
  }
  return node;
}

const componentName = (ref: string): string => ref.slice(ref.lastIndexOf('/') + 1);

/** A string field of the document ('' where there is none). */
function text(value: JsonValue | undefined): string {
  return typeof value === 'string' ? value : '';
}

/** The Markdown tables of the OpenAPI document's structure. */
export function catalogPageSection(openapi: JsonObject): string {
  const webhooks = objectAt(openapi, 'webhooks');
  const rows = Object.entries(webhooks).map(([type, item]) => {
    const post = objectAt(item as JsonObject, 'post');
    const schema = objectAt(post, 'requestBody', 'content', 'application/json', 'schema');
    const [tag = ''] = post.tags as string[];
    const component = componentName(text(schema.$ref));
    return `| \`${type}\` | ${tag} | ${cell(text(post.description))} | \`${component}\` | [${type}.json](${SCHEMAS_FROM_DOCS}/json-schema/${type}.json) |`;
  });
  const parameters = Object.values(objectAt(openapi, 'components', 'parameters')).map((parameter) => {
    const { name, description, schema } = parameter as { name: string; description: string; schema: { pattern: string } };
    return `| \`${name}\` | \`${cell(schema.pattern)}\` | ${cell(description)} |`;
  });
  const responses = Object.entries(objectAt(openapi, 'components', 'responses')).map(
    ([range, response]) => `| ${range} | ${cell(text((response as JsonObject).description))} |`,
  );
  const shared = Object.entries(objectAt(openapi, 'components', 'schemas'))
    .filter(([name]) => !name.endsWith('Event'))
    .map(([name, schema]) => `| \`${name}\` | ${cell(text((schema as JsonObject).description))} |`);
  const info = objectAt(openapi, 'info');
  return [
    `The OpenAPI ${text(openapi.openapi)} document of version ${text(info.version)}: [openapi.json](${SCHEMAS_FROM_DOCS}/openapi.json) ` +
      `(AsyncAPI: [asyncapi.json](${SCHEMAS_FROM_DOCS}/asyncapi.json); the union of all types as JSON Schema: ` +
      `[event.json](${SCHEMAS_FROM_DOCS}/json-schema/event.json)).`,
    '',
    `### Webhooks (${rows.length})`,
    '',
    'Each is a `post` with the two headers below, the event as its JSON body (the component named here, with the sample as example) and the three answers.',
    '',
    '| Webhook | Group (tag) | When | Request body | JSON Schema |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    '### Headers',
    '',
    '| Header | Pattern | Description |',
    '|---|---|---|',
    ...parameters,
    '',
    '### Answers',
    '',
    '| Status | What it means, and what the sender does |',
    '|---|---|',
    ...responses,
    '',
    '### Shared schemas',
    '',
    'Defined once in `components.schemas` (in `$defs` of each JSON Schema file) and referred to by the events.',
    '',
    '| Schema | Description |',
    '|---|---|',
    ...shared,
  ].join('\n');
}
