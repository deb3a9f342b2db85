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

/**
 * Redocly's recommended rules, with one switched off: `no-empty-servers` asks for `servers`,
 * where an API's paths are called. This document has no paths, only webhooks, which the
 * platform sends to the URL each receiver registers: there is no server to name, and inventing
 * one would tell tools to send requests there.
 */
const RULES_OFF = { 'no-empty-servers': 'off' } as const;

async function lint(source: string, rules: Record<string, 'off'> = RULES_OFF) {
  const config = await createConfig({ extends: ['recommended'], rules });
  const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
  return problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer ?? ''}`);
}

describe('the OpenAPI document', () => {
  it('lints clean with Redocly\'s recommended rules, as JSON and as YAML', async () => {
    expect(await lint(await catalog('openapi'))).toEqual([]);
    expect(await lint(await catalog('openapi', '--yaml'))).toEqual([]);
  });

  it('fails only no-empty-servers with that rule on: the linter runs, and the one rule off is the one explained', async () => {
    expect(await lint(await catalog('openapi'), {})).toEqual(['error no-empty-servers: Servers must be present. at #/openapi']);
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
