import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

const root = resolve(import.meta.dirname, '..');

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of `npm pack`'s tarball of this repository, built before the run. */
    tarball: string;
  }
}

function newestSourceChange(dir: string): number {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .reduce((newest, entry) => Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs), 0);
}

function distIsStale(): boolean {
  const built = join(root, 'dist', 'index.js');
  return !existsSync(built) || statSync(built).mtimeMs < newestSourceChange(join(root, 'src'));
}

// Tests that install the package, run the CLI or start receiver processes use the built output:
// `npm test` builds first; a direct `vitest` run rebuilds here when dist/ is missing or stale.
export default function setup(project: TestProject): () => void {
  if (distIsStale()) {
    execFileSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'inherit' });
  }
  const packDir = mkdtempSync(join(tmpdir(), 'acct-webhook-pack-'));
  execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', packDir], { cwd: root, stdio: 'ignore' });
  const tarball = readdirSync(packDir).find((file) => file.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack wrote no tarball into ${packDir}`);
  project.provide('tarball', join(packDir, tarball));
  return () => rmSync(packDir, { recursive: true, force: true });
}
