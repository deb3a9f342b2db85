import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDependencySpec, specForProject } from '../../src/scaffold/acct-webhook-dependency.js';
import { isRegistryInstall } from '../../src/scaffold/install-source.js';
import { CREATE_PACKAGE, temporaryDirectory } from './helpers.js';

const workspace = temporaryDirectory('install-source');
afterAll(() => workspace.remove());

/** A project with create-acct-webhook in its node_modules, as npm records it in the hidden lockfile. */
function installedPackage(name: string, record: Record<string, unknown> | undefined): string {
  const project = join(workspace.path, name);
  const packageRoot = join(project, 'node_modules', 'create-acct-webhook');
  mkdirSync(packageRoot, { recursive: true });
  if (record !== undefined) {
    const lockfile = { lockfileVersion: 3, packages: { 'node_modules/create-acct-webhook': { version: '1.0.0', ...record } } };
    writeFileSync(join(project, 'node_modules', '.package-lock.json'), JSON.stringify(lockfile));
  }
  return packageRoot;
}

describe('where create-acct-webhook was installed from', () => {
  it('a checkout (also reached through the workspace link) is not a registry install', () => {
    expect(isRegistryInstall(realpathSync(CREATE_PACKAGE))).toBe(false);
  });

  it('npm create / npx from a registry is', () => {
    expect(isRegistryInstall(installedPackage('npx-registry', { resolved: 'https://registry.npmjs.org/create-acct-webhook/-/create-acct-webhook-1.0.0.tgz' }))).toBe(true);
    // npm leaves registry URLs out of lockfiles with omit-lockfile-registry-resolved.
    expect(isRegistryInstall(installedPackage('npx-no-url', { integrity: 'sha512-…' }))).toBe(true);
  });

  it('a packed tarball or a linked directory is not', () => {
    expect(isRegistryInstall(installedPackage('npx-tarball', { resolved: 'file:../../create-acct-webhook-1.0.0.tgz' }))).toBe(false);
    expect(isRegistryInstall(installedPackage('linked', { resolved: '../checkout', link: true }))).toBe(false);
  });

  it('without npm\'s record (pnpm, yarn, a global install) a registry is assumed', () => {
    expect(isRegistryInstall(installedPackage('no-record', undefined))).toBe(true);
  });
});

describe('--acct-webhook specs', () => {
  const cwd = workspace.path;
  const project = join(workspace.path, 'apps', 'receiver');
  writeFileSync(join(workspace.path, 'acct-webhook-1.0.0.tgz'), 'a packed build');

  it.each([
    ['file:acct-webhook-1.0.0.tgz', 'file:../../acct-webhook-1.0.0.tgz'],
    ['./acct-webhook-1.0.0.tgz', 'file:../../acct-webhook-1.0.0.tgz'],
    [`file:${join(workspace.path, 'acct-webhook-1.0.0.tgz')}`, 'file:../../acct-webhook-1.0.0.tgz'],
    ['.', 'file:../..'],
  ])('reads the local path %s from the current directory and writes it relative to the project', (spec, written) => {
    expect(specForProject(parseDependencySpec(spec, cwd), project)).toBe(written);
  });

  it.each(['1.0.0', '^1.0.0', 'next', 'npm:acct-webhook@1.0.0', 'github:owner/acct-webhook#v1.0.0'])('writes the registry or git spec %s unchanged', (spec) => {
    expect(specForProject(parseDependencySpec(spec, cwd), project)).toBe(spec);
  });

  it.each(['file:missing.tgz', '../missing.tgz', '', '  '])('refuses %j with INVALID_ARGUMENTS, naming the option', (spec) => {
    expect(() => parseDependencySpec(spec, cwd)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENTS', details: expect.objectContaining({ option: 'acct-webhook' }) }));
  });
});
