/**
 * Redaction paths as pino writes them (`secret`, `*.secret`, `headers.authorization`,
 * `["x-svc-signature"]`, `*["x-svc-signature"]`, `items[0]`): dot-separated keys, a key in
 * brackets and quotes when it is not a plain name, an index in brackets, and `*` (or `[*]`) for
 * every key at that depth. The built-in JSON logger (json-logger.ts) reads them, so that a path
 * means the same to it as to pino.
 */

/** A path read once: its keys, `WILDCARD` standing for any key. */
export type RedactionPath = readonly (string | typeof WILDCARD)[];

/** `*` in a path: every own key of the object at that depth. */
export const WILDCARD: unique symbol = Symbol('any key');

const BRACKETED = /^\[(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^\]"'*]+)|(\*))\]/;
const FIRST_PLAIN = /^\.?([^.[\]"']+)/;
const PLAIN = /^\.([^.[\]"']+)/;

/**
 * The keys of a path. A path it cannot read is a programming error of this package (the paths
 * are its own constants), so it throws.
 */
export function parseRedactionPath(path: string): RedactionPath {
  const keys: (string | typeof WILDCARD)[] = [];
  let rest = path;
  while (rest.length > 0) {
    // A plain key follows a dot, except at the start (where pino allows one).
    const plain = (keys.length === 0 ? FIRST_PLAIN : PLAIN).exec(rest);
    const bracketed = plain ? null : BRACKETED.exec(rest);
    if (plain) keys.push(plain[1] === '*' ? WILDCARD : plain[1]!);
    else if (bracketed) keys.push(bracketed[4] === undefined ? unescape(bracketed[1] ?? bracketed[2] ?? bracketed[3]!) : WILDCARD);
    else throw new Error(`Not a redaction path: ${path}`);
    rest = rest.slice((plain ?? bracketed)![0].length);
  }
  if (keys.length === 0) throw new Error('Not a redaction path: an empty string');
  return keys;
}

function unescape(text: string): string {
  return text.replace(/\\(.)/g, '$1');
}

/**
 * `value` with every property a path names replaced by `censor`. Nothing is changed in place: an
 * object on the way to a replaced property is copied (its own properties, an Error's message and
 * stack included), everything else is shared with `value`. Only properties that exist are
 * replaced, as pino does.
 */
export function redact<T>(value: T, paths: readonly RedactionPath[], censor: string): T {
  let result: unknown = value;
  for (const path of paths) result = redactAt(result, path, 0, censor);
  return result as T;
}

function redactAt(node: unknown, path: RedactionPath, depth: number, censor: string): unknown {
  if (node === null || typeof node !== 'object') return node;
  const key = path[depth]!;
  const record = node as Record<string, unknown>;
  const keys = key === WILDCARD ? Object.keys(record) : Object.hasOwn(record, key) ? [key] : [];
  let copy: Record<string, unknown> | undefined;
  for (const name of keys) {
    const replaced = depth === path.length - 1 ? censor : redactAt(record[name], path, depth + 1, censor);
    if (replaced === record[name]) continue;
    copy ??= shallowCopy(record);
    copy[name] = replaced;
  }
  return copy ?? node;
}

function shallowCopy(node: Record<string, unknown>): Record<string, unknown> {
  if (Array.isArray(node)) return [...(node as unknown[])] as unknown as Record<string, unknown>;
  const copy = Object.defineProperties(Object.create(Object.getPrototypeOf(node) as object | null) as Record<string, unknown>, Object.getOwnPropertyDescriptors(node));
  // Since V8 12 (Node.js 22) an Error's `stack` is an own accessor that reads the original's
  // internal slot: copied as a descriptor it reads undefined on the copy. Keep the text instead.
  if (node instanceof Error) Object.defineProperty(copy, 'stack', { value: node.stack, writable: true, configurable: true, enumerable: false });
  return copy;
}
