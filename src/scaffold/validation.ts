import { readdirSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { choiceNames } from './choices.js';
import { ScaffoldError } from './errors.js';
import { packageNameProblem } from './package-name.js';

/** Entries a directory may already hold and still count as empty: a fresh `git clone` of an empty repository. */
const IGNORED_ENTRIES: ReadonlySet<string> = new Set(['.git']);

/** `value` if it is one of `choices`' keys; UNKNOWN_OPTION_VALUE otherwise. */
export function parseChoice<T extends object>(option: string, value: string, choices: T): keyof T & string {
  const names = choiceNames(choices);
  if ((names as string[]).includes(value)) return value as keyof T & string;
  throw new ScaffoldError('UNKNOWN_OPTION_VALUE', `Unknown ${option} "${value}"; choose one of ${names.join(', ')}`, {
    option,
    value,
    allowed: names,
  });
}

/** INVALID_NAME unless `name` can be published as a new npm package. */
export function checkProjectName(name: string): string {
  const problem = packageNameProblem(name);
  if (problem) {
    throw new ScaffoldError('INVALID_NAME', `"${name}" is not a valid npm package name: ${problem}`, { name, problem });
  }
  return name;
}

/** The package name a directory gives: its last path segment. */
export function projectNameFor(directory: string): string {
  return basename(directory);
}

/**
 * The project may go into `directory` when it does not exist yet, or is empty (a `.git` alone
 * counts as empty), or `force` is set. A file in its place is never overwritten.
 */
export function checkTargetDirectory(directory: string, force: boolean): void {
  const stats = statSync(directory, { throwIfNoEntry: false });
  if (!stats) return;
  if (!stats.isDirectory()) {
    throw new ScaffoldError('NOT_A_DIRECTORY', `${directory} exists and is not a directory`, { directory });
  }
  const entries = readdirSync(directory).filter((entry) => !IGNORED_ENTRIES.has(entry));
  if (entries.length > 0 && !force) {
    throw new ScaffoldError(
      'DIRECTORY_NOT_EMPTY',
      `${directory} is not empty (${entries.length} entries); choose another directory, or pass --force to write into it`,
      { directory, entries: entries.length },
    );
  }
}
