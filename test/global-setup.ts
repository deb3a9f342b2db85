import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

const root = resolve(import.meta.dirname, '..');
const createPackage = join(root, 'packages', 'create-acct-webhook');

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of `npm pack`'s tarball of this repository (acct-webhook), built before the run. */
    tarball: string;
    /** Path of `npm pack`'s tarball of packages/create-acct-webhook, built before the run. */
    createTarball: string;
  }
}

/** The newest modification time of `path`: a file's own, or the newest file's under a directory. */
function newestChange(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return readdirSync(path, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .reduce((newest, entry) => Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs), 0);
}

function isStale(built: string, sources: readonly string[]): boolean {
  return !existsSync(built) || statSync(built).mtimeMs < Math.max(...sources.map(newestChange));
}

/** npm pack's tarball of the package in `directory`, written into `destination`. */
function pack(directory: string, destination: string): string {
  execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', destination], { cwd: directory, stdio: 'ignore' });
  const { name } = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as { name: string };
  const tarball = readdirSync(destination).find((file) => file.startsWith(`${name}-`) && file.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack wrote no tarball of ${name} into ${destination}`);
  return join(destination, tarball);
}

// Tests that install the packages, run the CLIs or start receiver processes use the built output:
// `npm test` builds first; a direct `vitest` run rebuilds here what is missing or stale.
export default function setup(project: TestProject): () => void {
  if (isStale(join(root, 'dist', 'index.js'), [join(root, 'src')])) {
    execFileSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'inherit' });
  }
  // The create package bundles src/scaffold (and what it imports) and copies templates/.
  const createSources = [join(root, 'src'), join(root, 'templates'), join(root, 'package.json'), join(createPackage, 'package.json'), join(createPackage, 'tsup.config.ts')];
  if (isStale(join(createPackage, 'dist', 'index.js'), createSources)) {
    execFileSync('npx', ['tsup', '--silent'], { cwd: createPackage, stdio: 'inherit' });
  }
  const packDir = mkdtempSync(join(tmpdir(), 'acct-webhook-pack-'));
  project.provide('tarball', pack(root, packDir));
  project.provide('createTarball', pack(createPackage, packDir));
  return () => rmSync(packDir, { recursive: true, force: true });
}
