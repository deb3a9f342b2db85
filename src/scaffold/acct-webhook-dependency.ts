import { existsSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { ScaffoldError } from './errors.js';
import { PACKAGE_NAME, type GeneratorPackage } from './generator-package.js';

/** `../x.tgz`, `./dir`, `/abs/x.tgz`: npm takes these as local paths, like `file:` specs. */
const BARE_PATH = /^(\.\.?([\\/]|$)|\/)/;
const FILE_PROTOCOL = 'file:';

/**
 * The `--acct-webhook` spec, checked. A local path (`file:…`, or a path starting with `.` or
 * `/`) is taken from where the command runs, as a shell completes it, must exist, and comes back
 * as `file:<absolute path>`; any other npm spec (a version, a range, a tag, a git URL) comes back
 * unchanged. Checked with the other flags, before any question is asked.
 */
export function parseDependencySpec(spec: string, cwd: string): string {
  const trimmed = spec.trim();
  if (trimmed === '') throw invalidSpec(spec, 'an npm spec cannot be empty');
  const path = trimmed.startsWith(FILE_PROTOCOL) ? trimmed.slice(FILE_PROTOCOL.length) : BARE_PATH.test(trimmed) ? trimmed : undefined;
  if (path === undefined) return trimmed;
  const absolute = resolve(cwd, path);
  if (!existsSync(absolute)) throw invalidSpec(spec, `${absolute} does not exist (npm pack in the acct-webhook checkout writes acct-webhook-<version>.tgz)`);
  return `${FILE_PROTOCOL}${absolute}`;
}

/** A parsed spec as the project's package.json needs it: npm reads `file:` paths relative to the project. */
export function specForProject(parsedSpec: string, projectDirectory: string): string {
  if (!parsedSpec.startsWith(FILE_PROTOCOL)) return parsedSpec;
  const absolute = parsedSpec.slice(FILE_PROTOCOL.length);
  return `${FILE_PROTOCOL}${relative(projectDirectory, absolute).split(sep).join('/') || '.'}`;
}

function invalidSpec(spec: string, reason: string): ScaffoldError {
  return new ScaffoldError('INVALID_ARGUMENTS', `--acct-webhook ${JSON.stringify(spec)}: ${reason}`, { option: 'acct-webhook', reason });
}

/** What the project's package.json says for acct-webhook: the given spec, else `^<version built beside this package>`. */
export function acctWebhookDependency(spec: string | undefined, generator: GeneratorPackage): string {
  return spec ?? `^${generator.acctWebhookVersion}`;
}

/**
 * One line saying how acct-webhook was written, when that may surprise: a spec was given, or
 * this create package is not a registry install (a checkout or a tarball), where
 * `^<version>` may not be published yet. From a registry it says nothing.
 */
export function dependencyNote(spec: string | undefined, generator: GeneratorPackage, fromRegistry: boolean): string | undefined {
  const written = acctWebhookDependency(spec, generator);
  if (spec !== undefined) return `${PACKAGE_NAME} is written as "${written}" in package.json (--acct-webhook).\n`;
  if (fromRegistry) return undefined;
  const tarball = `${PACKAGE_NAME}-${generator.acctWebhookVersion}.tgz`;
  return (
    `${PACKAGE_NAME} is written as "${written}" in package.json, from the registry; this create-acct-webhook is not a registry install. ` +
    `To use a local build instead, run npm pack in the ${PACKAGE_NAME} checkout and pass --acct-webhook file:<path to ${tarball}>.\n`
  );
}
