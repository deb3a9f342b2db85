import SwaggerParser from '@apidevtools/swagger-parser';
import { Parser as AsyncApiParser } from '@asyncapi/parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/index.js';
import { runCommand } from '../cli/helpers.js';

/*
 * The documents `acct-webhook catalog` prints, read by the tools people load them into:
 * Redocly's linter with its recommended rules, swagger-parser (validate, bundle, dereference),
 * and the AsyncAPI parser (which runs its own Spectral rules).
 */

async function catalog(format: string, ...flags: string[]): Promise<string> {
  const run = await runCommand(['catalog', '--format', format, ...flags]);
  expect(run.exitCode, run.stderr).toBe(0);
  return run.stdout;
}

/** Redocly's recommended rules, every one on: what `npx @redocly/cli lint` runs without a config. */
async function lint(source: string) {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
  return problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer ?? ''}`);
}

describe('the OpenAPI document', () => {
  it('lints clean with Redocly\'s recommended rules, none switched off, as JSON and as YAML', async () => {
    expect(await lint(await catalog('openapi'))).toEqual([]);
    expect(await lint(await catalog('openapi', '--yaml'))).toEqual([]);
  });

  it('names the platform\'s API roots as server variables, and the linter refuses a server variable left undefined', async () => {
    const document = JSON.parse(await catalog('openapi')) as { servers: { url: string; variables: Record<string, { default: string }> }[] };
    expect(document.servers.map((server) => [server.url, Object.keys(server.variables)])).toEqual([
      ['{sandbox_url}', ['sandbox_url']],
      ['{base_url}', ['base_url']],
    ]);
    // The same linter fails a document whose server names a variable it does not define.
    const broken = { ...document, servers: [{ url: '{base_url}' }] };
    expect(await lint(JSON.stringify(broken))).toContainEqual(expect.stringMatching(/^error no-undefined-server-variable/));
  });

  it('validates, bundles and dereferences with swagger-parser, every webhook with its event schema and the signature headers', async () => {
    const document = JSON.parse(await catalog('openapi')) as object;
    await SwaggerParser.validate(structuredClone(document) as never);
    const bundled = await SwaggerParser.bundle(structuredClone(document) as never);
    expect(Object.keys((bundled as { webhooks: object }).webhooks)).toEqual(EVENT_TYPES);
    const dereferenced = (await SwaggerParser.dereference(structuredClone(document) as never)) as unknown as {
      webhooks: Record<string, { post: { parameters: { name: string; required: boolean }[]; requestBody: { content: Record<string, { schema: { properties: { type: { const: string } } } }> } } }>;
    };
    for (const type of EVENT_TYPES) {
      const { post } = dereferenced.webhooks[type]!;
      expect(post.requestBody.content['application/json']!.schema.properties.type.const).toBe(type);
      expect(post.parameters.map((parameter) => [parameter.name, parameter.required])).toEqual([
        ['x-svc-signature', true],
        ['x-svc-timestamp', true],
      ]);
    }
  });
});

describe('the AsyncAPI document', () => {
  /**
   * The parser's diagnostics the document may have: information that AsyncAPI 3.1 exists. The
   * catalog is AsyncAPI 3.0, the version the issue asks for and the tools in use read.
   */
  const EXPLAINED = new Set(['asyncapi-latest-version']);
  const SEVERITIES = ['error', 'warning', 'information', 'hint'];

  it.each([['JSON'], ['YAML']])('parses as %s without errors or warnings, with 18 messages received on one channel', async (form) => {
    const source = await catalog('asyncapi', ...(form === 'YAML' ? ['--yaml'] : []));
    const { document, diagnostics } = await new AsyncApiParser().parse(source);
    const unexplained = diagnostics.filter((diagnostic) => !EXPLAINED.has(String(diagnostic.code)));
    expect(unexplained.map((diagnostic) => `${SEVERITIES[diagnostic.severity]} ${diagnostic.code}: ${diagnostic.message}`)).toEqual([]);
    expect(diagnostics.every((diagnostic) => SEVERITIES[diagnostic.severity] === 'information')).toBe(true);
    expect(document).toBeDefined();
    expect(document!.messages().all().map((message) => message.name())).toEqual(EVENT_TYPES);
    expect(document!.channels().all()).toHaveLength(1);
    const [operation] = document!.operations().all();
    expect(document!.operations().all()).toHaveLength(1);
    expect(operation!.action()).toBe('receive');
  });
});
