import { builtinModules } from 'node:module';

/** npm refuses longer names. */
export const MAX_PACKAGE_NAME_LENGTH = 214;

/** Names npm reserves besides Node's built-in modules. */
const RESERVED_NAMES: ReadonlySet<string> = new Set(['node_modules', 'favicon.ico']);
/** Allowed in old packages only; npm refuses them in new names. */
const SPECIAL_CHARACTERS = /[~'!()*]/;
const SCOPED_NAME = /^@([^/]+)\/([^/]+)$/;

/**
 * Why `name` cannot be published as a new npm package, or `undefined` when it can. The rules
 * are npm's for new packages: at most 214 characters, lower case, URL-safe, not starting with
 * `.` or `_`, none of `~'!()*`, not a Node built-in (`http`) and not reserved; `@scope/name`
 * with both parts following the same rules.
 */
export function packageNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'a package name cannot be empty';
  if (name.length > MAX_PACKAGE_NAME_LENGTH) return `a package name has at most ${MAX_PACKAGE_NAME_LENGTH} characters`;
  if (name.trim() !== name) return 'a package name cannot start or end with spaces';
  if (name.toLowerCase() !== name) return 'a package name must be lower case';
  if (SPECIAL_CHARACTERS.test(name)) return "a package name cannot contain any of ~'!()*";
  if (RESERVED_NAMES.has(name) || isBuiltinModule(name)) return `"${name}" is reserved`;
  const scoped = SCOPED_NAME.exec(name);
  if (name.startsWith('@') && !scoped) return 'a scoped package name looks like @scope/name';
  const parts = scoped ? [scoped[1]!, scoped[2]!] : [name];
  for (const part of parts) {
    if (part.startsWith('.') || part.startsWith('_')) return 'a package name cannot start with "." or "_"';
    if (encodeURIComponent(part) !== part) return 'a package name can only contain URL-safe characters (a-z, 0-9, "-", ".", "_")';
  }
  return undefined;
}

function isBuiltinModule(name: string): boolean {
  return builtinModules.includes(name) || builtinModules.includes(`node:${name}`);
}
