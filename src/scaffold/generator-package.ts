import { join } from 'node:path';
import { findPackageRoot as findRoot, readManifest } from '../cli-kit/package-root.js';
import { ScaffoldError } from './errors.js';

/** The package the scaffolder ships in; generated projects depend on it. */
export const PACKAGE_NAME = 'acct-webhook';

/**
 * The installed generator, as its own package.json describes it. Generated projects take their
 * versions from here — `acct-webhook` at this version, and express, pino, typescript, vitest …
 * at the ranges this package is built and tested with — so they move together.
 */
export interface GeneratorPackage {
  root: string;
  version: string;
  templatesDirectory: string;
  /** `engines.node` of this package: the generated project needs the same Node.js. */
  nodeEngine: string;
  /** Which dependencies' install scripts npm may run (npm's `allowScripts`). */
  allowScripts: Readonly<Record<string, boolean>>;
  /** The version range this package uses for `name` (a dependency or a dev dependency). */
  versionOf(name: string): string;
}

/** The directory of the `acct-webhook` package that holds `path` (a file inside it). */
export function findPackageRoot(path: string): string {
  const root = findRoot(path, PACKAGE_NAME);
  if (root === undefined) throw new ScaffoldError('TEMPLATE_ERROR', `Cannot find the ${PACKAGE_NAME} package around ${path}`, { path });
  return root;
}

export function readGeneratorPackage(root: string): GeneratorPackage {
  const manifest = readManifest(root);
  if (!manifest?.version) throw new ScaffoldError('TEMPLATE_ERROR', `${join(root, 'package.json')} has no version`, { root });
  const versions = { ...manifest.devDependencies, ...manifest.dependencies };
  return {
    root,
    version: manifest.version,
    templatesDirectory: join(root, 'templates'),
    nodeEngine: manifest.engines?.node ?? '>=20',
    allowScripts: manifest.allowScripts ?? {},
    versionOf: (name) => {
      const range = versions[name];
      if (!range) throw new ScaffoldError('TEMPLATE_ERROR', `${PACKAGE_NAME}'s package.json has no version of ${name}`, { name });
      return range;
    },
  };
}
