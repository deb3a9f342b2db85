import { createRequire } from 'node:module';
import { ConfigurationError } from './errors.js';

/**
 * Packages this one uses only when a feature needs them (better-sqlite3, pg, the CLI's
 * OpenTelemetry SDK) are loaded here, when that feature is set up — never when an entry point is
 * imported — so that everything else runs where they are not installed. A missing one is a
 * {@link ConfigurationError} that names the package and the command that installs it, thrown
 * where the feature is set up, never a bare "Cannot find package".
 *
 * `createRequire` works in both builds: tsup's shims give the CommonJS output an
 * `import.meta.url`. Resolution starts from this package's own files, as Node's would for an
 * `import` written in them.
 */

/** What needs an optional package, for the error that says it is missing. */
export interface OptionalPackageUse {
  /** The option or argument that needs it (the error's `details.option`). */
  option: string;
  /** What needs it, as a sentence starts: 'SQLite storage'. */
  feature: string;
  /** What works without it, to end the advice with: 'or use memoryStore()'. */
  instead?: string;
  /** What repairs an installed copy that does not load. @default `npm install <name>` */
  repair?: string;
}

const requireHere = createRequire(import.meta.url);

/**
 * The CommonJS package `name`, or a ConfigurationError: not installed, or installed but
 * failing to load. `check` runs once it is loaded, for what loading alone does not prove (a
 * native module that was never built is only opened on first use); what it throws counts as
 * failing to load.
 */
export function requireOptionalPackage<T>(name: string, use: OptionalPackageUse, check?: (loaded: T) => void): T {
  if (!isInstalled(name)) throw notInstalled([name], use);
  try {
    const loaded = requireHere(name) as T;
    check?.(loaded);
    return loaded;
  } catch (error) {
    throw notLoadable(name, use, error);
  }
}

/**
 * Runs `load` (a dynamic import of a module that imports some of `names`); when it fails and
 * some of them are not installed, the failure is a ConfigurationError naming every one of them
 * in one install command. Any other failure is passed on as it is.
 */
export async function importWithOptionalPackages<T>(load: () => Promise<T>, names: readonly string[], use: OptionalPackageUse): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const missing = names.filter((name) => !isInstalled(name));
    if (missing.length > 0) throw notInstalled(missing, use, error);
    throw error;
  }
}

/**
 * Whether `name` can be found from this package. Its package.json is looked up rather than its
 * main file: an ES-module-only package has no `require` entry, and a package whose `exports`
 * leave package.json out is installed all the same.
 */
function isInstalled(name: string): boolean {
  try {
    requireHere.resolve(`${name}/package.json`);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === 'ERR_PACKAGE_PATH_NOT_EXPORTED';
  }
}

function notInstalled(names: readonly string[], use: OptionalPackageUse, cause?: unknown): ConfigurationError {
  const instead = use.instead === undefined ? '' : `, ${use.instead}`;
  const install = `npm install ${names.join(' ')}`;
  const [packages, it, isNot] = names.length === 1 ? [`the ${names[0]!} package`, 'it', 'is not'] : [`the ${listed(names)} packages`, 'them', 'are not'];
  return new ConfigurationError(
    { option: use.option, reason: `needs ${packages}: install ${it} (${install})${instead}` },
    `${use.feature} needs ${packages}, which ${isNot} installed: ${install}${instead}`,
    cause === undefined ? undefined : { cause },
  );
}

/** `a`, `a and b`, `a, b and c`. */
function listed(names: readonly string[]): string {
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`;
}

function notLoadable(name: string, use: OptionalPackageUse, cause: unknown): ConfigurationError {
  const why = firstLine(cause instanceof Error ? cause.message : String(cause));
  const repair = use.repair ?? `npm install ${name}`;
  return new ConfigurationError(
    { option: use.option, reason: `needs the ${name} package, which is installed but cannot be loaded (${why}): ${repair}` },
    `${use.feature} needs the ${name} package, which is installed but cannot be loaded (${why}): ${repair}`,
    { cause },
  );
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0]!.trim();
}
