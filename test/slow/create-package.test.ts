import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { generatorData, GENERATOR_DATA_FILE, type ManifestVersions } from '../../src/scaffold/generator-data.js';
import { CREATE_PACKAGE, listFiles, readJson, REPO_ROOT } from '../scaffold/helpers.js';

const run = promisify(execFile);

interface Manifest extends ManifestVersions {
  name: string;
  bin?: Record<string, string>;
  files?: string[];
  workspaces?: string[];
}

/** The files of a packed tarball, without npm's `package/` prefix. */
async function tarballFiles(tarball: string): Promise<string[]> {
  const { stdout } = await run('tar', ['-tzf', tarball]);
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace(/^package\//, ''));
}

const root = readJson<Manifest>(join(REPO_ROOT, 'package.json'));
const create = readJson<Manifest>(join(CREATE_PACKAGE, 'package.json'));

describe('the two packages of this repository', () => {
  let acctWebhookFiles: string[];
  let createFiles: string[];

  beforeAll(async () => {
    [acctWebhookFiles, createFiles] = await Promise.all([tarballFiles(inject('tarball')), tarballFiles(inject('createTarball'))]);
  });

  it('are acct-webhook at the top level and create-acct-webhook as an npm workspace, at one version, for one Node.js', () => {
    expect(root.name).toBe('acct-webhook');
    expect(root.workspaces).toEqual(['packages/*']);
    expect(create.name).toBe('create-acct-webhook');
    expect(create.version).toBe(root.version);
    expect(create.engines).toEqual(root.engines);
  });

  it('create-acct-webhook has no dependencies to install: its bundle carries commander, the prompts and the event catalog', () => {
    expect(create.dependencies ?? {}).toEqual({});
    expect(create.optionalDependencies ?? {}).toEqual({});
    expect(create.peerDependencies ?? {}).toEqual({});
    expect(create.bin).toEqual({ 'create-acct-webhook': './bin/create-acct-webhook.js' });
  });

  it('create-acct-webhook ships its bin, the bundle, the versions data and every template', () => {
    expect(createFiles).toEqual(expect.arrayContaining(['package.json', 'README.md', 'bin/create-acct-webhook.js', 'dist/index.js', GENERATOR_DATA_FILE]));
    const templates = listFiles(join(REPO_ROOT, 'templates')).map((file) => `templates/${file}`);
    expect(templates).toContain('templates/common/_gitignore');
    expect(createFiles).toEqual(expect.arrayContaining(templates));
  });

  it('the versions data is what the repository\'s package.json files say', () => {
    const shipped = JSON.parse(readFileSync(join(CREATE_PACKAGE, ...GENERATOR_DATA_FILE.split('/')), 'utf8')) as unknown;
    expect(shipped).toEqual(generatorData(root, create));
    expect(shipped).toMatchObject({ acctWebhookVersion: root.version, versions: { 'better-sqlite3': expect.any(String), tsx: expect.any(String) } });
  });

  it('acct-webhook no longer carries the scaffolder: no create bin, no templates, no prompts library for its users', () => {
    expect(Object.keys(root.bin ?? {})).toEqual(['acct-webhook']);
    expect(root.dependencies).not.toHaveProperty('@clack/prompts');
    expect(acctWebhookFiles.filter((file) => file.startsWith('templates/') || file.startsWith('dist/create') || file.includes('create-acct-webhook'))).toEqual([]);
    expect(acctWebhookFiles).toContain('bin/acct-webhook.js');
  });
});

describe('the versions data', () => {
  const development = { express: '^5.3.0', fastify: '^5.12.0', hono: '^4.13.0', '@hono/node-server': '^1.19.0', typescript: '~5.9.3', vitest: '^4.1.0', '@types/node': '^20.0.0', '@types/express': '^5.0.0' };
  const acctWebhook: ManifestVersions = {
    version: '1.2.3',
    engines: { node: '>=20.12' },
    dependencies: { pino: '^10.0.0' },
    optionalDependencies: { 'better-sqlite3': '^12.0.0' },
    peerDependencies: { express: '^4.21.0 || ^5.0.0', fastify: '^5.0.0', hono: '^4.0.0', pg: '^8.11.0' },
    devDependencies: { ...development, pg: '^8.23.1' },
  };
  const createPackage: ManifestVersions = { devDependencies: { tsx: '^4.21.0' } };

  it('takes the most specific range: a dependency, then a development one, then a peer range; tsx from the create package', () => {
    const data = generatorData(acctWebhook, createPackage);
    expect(data).toMatchObject({ acctWebhookVersion: '1.2.3', nodeEngine: '>=20.12' });
    expect(data.versions).toMatchObject({ pino: '^10.0.0', 'better-sqlite3': '^12.0.0', express: '^5.3.0', fastify: '^5.12.0', hono: '^4.13.0', '@hono/node-server': '^1.19.0', pg: '^8.23.1', tsx: '^4.21.0' });
    expect(generatorData({ ...acctWebhook, devDependencies: development }, createPackage).versions.pg).toBe('^8.11.0');
  });

  it('fails the build when a package a project may need has no range', () => {
    expect(() => generatorData(acctWebhook, {})).toThrow();
    expect(() => generatorData({ ...acctWebhook, dependencies: {} }, createPackage)).toThrow();
  });
});
