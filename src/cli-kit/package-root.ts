import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The fields of a package.json the command-line tools read. */
export interface PackageManifest {
  name?: string;
  version?: string;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  allowScripts?: Record<string, boolean>;
}

/**
 * The directory of the package called `name` that holds `path` (a file inside it, e.g. the
 * launcher in bin/), or undefined when no such package.json is found walking up.
 */
export function findPackageRoot(path: string, name: string): string | undefined {
  for (let directory = dirname(path); ; directory = dirname(directory)) {
    if (readManifest(directory)?.name === name) return directory;
    if (dirname(directory) === directory) return undefined;
  }
}

/** The package.json in `directory`, or undefined when there is none. */
export function readManifest(directory: string): PackageManifest | undefined {
  const file = join(directory, 'package.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as PackageManifest) : undefined;
}
