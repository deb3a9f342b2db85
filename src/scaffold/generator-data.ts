/**
 * What the create-acct-webhook package knows about acct-webhook: the create package is
 * published on its own, so it cannot read acct-webhook's package.json when it runs. Its build
 * takes these values from the repository's package.json files and ships them as
 * {@link GENERATOR_DATA_FILE}; generated projects then get the versions this repository is
 * built and tested with, and move with it.
 */
export interface GeneratorData {
  /** The acct-webhook version built beside this create package; projects depend on `^<it>`. */
  acctWebhookVersion: string;
  /** `engines.node` of acct-webhook: a generated project needs the same Node.js. */
  nodeEngine: string;
  /** Which dependencies' install scripts npm may run (npm's `allowScripts`), as acct-webhook allows them. */
  allowScripts: Readonly<Record<string, boolean>>;
  /** The version range of every package in {@link PROJECT_PACKAGES}. */
  versions: Readonly<Record<string, string>>;
}

/** Where the build writes the data, relative to the create package's root. */
export const GENERATOR_DATA_FILE = 'dist/generator.json';

/**
 * Every package a generated project may list besides acct-webhook. All but tsx are
 * acct-webhook's own (dependencies, optional, peer or development); tsx, which only generated
 * projects use, is a development dependency of the create package.
 */
export const PROJECT_PACKAGES = [
  'pino',
  'express',
  'fastify',
  'hono',
  '@hono/node-server',
  'better-sqlite3',
  'pg',
  'tsx',
  'typescript',
  'vitest',
  '@types/node',
  '@types/express',
] as const;
export type ProjectPackage = (typeof PROJECT_PACKAGES)[number];

/** The fields of a package.json the build reads. */
export interface ManifestVersions {
  version?: string;
  engines?: Record<string, string>;
  allowScripts?: Record<string, boolean>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/**
 * The data for {@link GENERATOR_DATA_FILE}, from acct-webhook's and the create package's
 * package.json. A range is taken from where it is most specific: a runtime or optional
 * dependency, then a development dependency, then a peer range. Throws when a package of
 * {@link PROJECT_PACKAGES} has no range anywhere: the build fails, not a user's generation.
 */
export function generatorData(acctWebhook: ManifestVersions, createPackage: ManifestVersions): GeneratorData {
  if (!acctWebhook.version) throw new Error("acct-webhook's package.json has no version");
  const sources = [acctWebhook.dependencies, acctWebhook.optionalDependencies, acctWebhook.devDependencies, createPackage.devDependencies, acctWebhook.peerDependencies];
  const versions = Object.fromEntries(
    PROJECT_PACKAGES.map((name) => {
      const range = sources.map((source) => source?.[name]).find((found) => found !== undefined);
      if (range === undefined) throw new Error(`No version range of ${name} in acct-webhook's or create-acct-webhook's package.json`);
      return [name, range];
    }),
  );
  return {
    acctWebhookVersion: acctWebhook.version,
    nodeEngine: acctWebhook.engines?.node ?? '>=20',
    allowScripts: acctWebhook.allowScripts ?? {},
    versions,
  };
}
