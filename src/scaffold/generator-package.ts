import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findPackageRoot as findRoot, readManifest } from '../cli-kit/package-root.js';
import { ScaffoldError } from './errors.js';
import { GENERATOR_DATA_FILE, type GeneratorData, type ProjectPackage } from './generator-data.js';

/** The package the scaffolder ships in: `npm create acct-webhook` runs its bin. */
export const CREATE_PACKAGE_NAME = 'create-acct-webhook';
/** The package generated projects depend on. */
export const PACKAGE_NAME = 'acct-webhook';

/**
 * The running create-acct-webhook, as its package.json and its build data describe it.
 * Generated projects take their versions from here — `acct-webhook` at the version built beside
 * this package, and express, pino, typescript, vitest … at the ranges acct-webhook is built and
 * tested with — so they move together.
 */
export interface GeneratorPackage {
  root: string;
  /** This package's version; releases give it acct-webhook's. */
  version: string;
  /** The acct-webhook version generated projects depend on (`^<it>`). */
  acctWebhookVersion: string;
  templatesDirectory: string;
  /** `engines.node` of acct-webhook: the generated project needs the same Node.js. */
  nodeEngine: string;
  /** Which dependencies' install scripts npm may run (npm's `allowScripts`). */
  allowScripts: Readonly<Record<string, boolean>>;
  /** The version range a generated project gets for `name`. */
  versionOf(name: ProjectPackage): string;
}

/** The directory of the create-acct-webhook package that holds `path` (a file inside it). */
export function findPackageRoot(path: string): string {
  const root = findRoot(path, CREATE_PACKAGE_NAME);
  if (root === undefined) throw new ScaffoldError('TEMPLATE_ERROR', `Cannot find the ${CREATE_PACKAGE_NAME} package around ${path}`, { path });
  return root;
}

export function readGeneratorPackage(root: string): GeneratorPackage {
  const manifest = readManifest(root);
  if (!manifest?.version) throw new ScaffoldError('TEMPLATE_ERROR', `${join(root, 'package.json')} has no version`, { root });
  const data = readGeneratorData(root);
  return {
    root,
    version: manifest.version,
    acctWebhookVersion: data.acctWebhookVersion,
    templatesDirectory: join(root, 'templates'),
    nodeEngine: data.nodeEngine,
    allowScripts: data.allowScripts,
    versionOf: (name) => {
      const range = data.versions[name];
      if (!range) throw new ScaffoldError('TEMPLATE_ERROR', `${GENERATOR_DATA_FILE} has no version of ${name}`, { name });
      return range;
    },
  };
}

function readGeneratorData(root: string): GeneratorData {
  const file = join(root, ...GENERATOR_DATA_FILE.split('/'));
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as GeneratorData;
  } catch (error) {
    // Only a checkout that was never built lacks it: a published package always has it.
    throw new ScaffoldError('TEMPLATE_ERROR', `Cannot read ${file}; build the package first (npm run build)`, { file }, { cause: error });
  }
}
