import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as MainEntry from '../../src/index.js';
import type * as PostgresEntry from '../../src/stores/postgres/index.js';
import type * as TestingEntry from '../../src/testing/index.js';

export const root = resolve(import.meta.dirname, '..', '..');
export const dist = join(root, 'dist');

/** Bare module names the built `entry` loads, following the relative imports between built chunks. */
export function externalImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const external = new Set<string>();
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\(\s*)["']([^"']+)["']/g;
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(pattern)) {
      if (specifier!.startsWith('.')) visit(join(dirname(file), specifier!));
      else external.add(specifier!);
    }
  };
  visit(join(dist, entry));
  return external;
}

/** The `exports` entry of `name` in package.json. */
export function exportOf(name: string): unknown {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
  return manifest.exports[name];
}

/** The built entries a test loads, typed by their sources (which the built declarations are made from). */
interface BuiltEntries {
  index: typeof MainEntry;
  testing: typeof TestingEntry;
  postgres: typeof PostgresEntry;
}

/**
 * An entry of the built package (dist/), imported when the test runs: by a path the type checker
 * does not follow, so that type-checking the tests needs no build (installing builds nothing).
 */
export function loadBuilt<Name extends keyof BuiltEntries>(name: Name): Promise<BuiltEntries[Name]> {
  return import(pathToFileURL(join(dist, `${name}.js`)).href) as Promise<BuiltEntries[Name]>;
}

/** The built files `entry` loads, itself included, following the relative imports between built chunks. */
export function reachableFiles(entry: string): string[] {
  const seen = new Set<string>();
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\(\s*)["'](\.[^"']+)["']/g;
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(pattern)) visit(join(dirname(file), specifier!));
  };
  visit(join(dist, entry));
  return [...seen];
}
