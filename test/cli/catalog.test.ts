import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { catalogDocuments } from '../../src/catalog/documents.js';
import { catalogFiles } from '../../src/catalog/files.js';
import { EVENT_TYPES } from '../../src/index.js';
import { expectOneLineError, runCommand, temporaryDirectory, TEST_VERSION } from './helpers.js';

const documents = catalogDocuments({ version: TEST_VERSION });
const directories: { remove(): void }[] = [];
afterEach(() => directories.splice(0).forEach((directory) => directory.remove()));

function outDirectory(): string {
  const directory = temporaryDirectory('catalog');
  directories.push(directory);
  return directory.path;
}

describe('acct-webhook catalog', () => {
  it.each([
    ['openapi', documents.openapi],
    ['asyncapi', documents.asyncapi],
    ['json-schema', documents.jsonSchema.event],
  ])('--format %s prints the document as JSON on stdout, with the version of the CLI', async (format, document) => {
    const run = await runCommand(['catalog', '--format', format]);
    expect(run).toMatchObject({ exitCode: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual(document);
    expect(run.stdout).toContain(TEST_VERSION);
  });

  it('--yaml prints the same document as YAML', async () => {
    const run = await runCommand(['catalog', '--format', 'openapi', '--yaml']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^openapi: "3\.1\.\d+"\n/);
    expect(parse(run.stdout)).toEqual(documents.openapi);
  });

  it('--out writes the files of the format into the directory (made when missing) and lists them', async () => {
    const directory = join(outDirectory(), 'new', 'schemas');
    const run = await runCommand(['catalog', '--format', 'json-schema', '--out', directory]);
    expect(run.exitCode, run.stderr).toBe(0);
    const expected = catalogFiles(documents, 'json-schema');
    expect(expected).toHaveLength(EVENT_TYPES.length + 1);
    expect(run.stdout.trimEnd().split('\n')).toEqual(expected.map((file) => join(directory, file.path)));
    for (const file of expected) expect(readFileSync(join(directory, file.path), 'utf8')).toBe(file.content);
  });

  it('--out with --yaml writes .yaml files', async () => {
    const directory = outDirectory();
    const run = await runCommand(['catalog', '--format', 'asyncapi', '--out', directory, '--yaml']);
    expect(run).toMatchObject({ exitCode: 0, stdout: `${join(directory, 'asyncapi.yaml')}\n` });
    expect(parse(readFileSync(join(directory, 'asyncapi.yaml'), 'utf8'))).toEqual(documents.asyncapi);
  });

  it('refuses an --out that is a file with a one-line INVALID_OPTION', async () => {
    const file = join(outDirectory(), 'taken');
    writeFileSync(file, 'not a directory');
    const run = await runCommand(['catalog', '--format', 'openapi', '--out', file]);
    expectOneLineError(run, 'INVALID_OPTION', 2);
    expect(run.stdout).toBe('');
  });

  it('refuses a format it does not know, naming the command', async () => {
    const run = await runCommand(['catalog', '--format', 'raml']);
    expectOneLineError(run, 'INVALID_OPTION', 2);
    expect(run.stderr).toMatch(/^acct-webhook catalog: --format must be one of openapi, asyncapi, json-schema; got "raml"/);
  });

  it('needs --format', async () => {
    expectOneLineError(await runCommand(['catalog']), 'INVALID_ARGUMENTS', 2);
  });
});
