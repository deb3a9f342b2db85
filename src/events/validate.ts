/*
 * What the generated event validators (validators.generated.ts, written by validator-source.ts
 * from the zod schemas) share: the failure marker, the issue they collect, zod's wording of a
 * value of the wrong type. Nothing here loads zod.
 */

/** A field path, as zod gives it: keys and array indexes from the event's root. */
export type Path = readonly PropertyKey[];

/** One problem in a refused event: where, and what (in zod's words). */
export interface Issue {
  path: Path;
  message: string;
}

/** What a validator returns for a value it refuses (a parsed event is never this object). */
export const FAIL: unique symbol = Symbol('invalid');

/** Refuses the value at `p`: FAIL, with the issue recorded when issues are collected. */
export function bad(e: Issue[] | undefined, p: Path, message: string): typeof FAIL {
  e?.push({ path: p, message });
  return FAIL;
}

/** A required key that is absent: true on the fast path (stop), else the issue is recorded. */
export function missing(e: Issue[] | undefined, p: Path, key: string): boolean {
  if (e === undefined) return true;
  e.push({ path: [...p, key], message: 'Invalid input: expected nonoptional, received undefined' });
  return false;
}

/** A string's length in code points (a surrogate pair counts once, a lone surrogate once), as zod measures strings. */
export function codePoints(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    if ((text.charCodeAt(i) & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--;
      i++;
    }
  }
  return count;
}

/**
 * zod's length check on a value that is not a string but has a `length` (an array, an object with
 * such a key), run after its type issue: the issue it adds, if any, in zod's words.
 */
export function lengthIssue(e: Issue[], p: Path, v: unknown, side: 'min' | 'max', limit: number, custom: string | null): void {
  if (v === null || v === undefined) return;
  const length = (v as { length?: unknown }).length as number | undefined;
  if (length === undefined) return;
  if (side === 'min' ? length >= limit : length <= limit) return;
  const origin = Array.isArray(v) ? 'array' : 'unknown';
  const sizing = origin === 'array' ? ` to have ${side === 'min' ? '>=' : '<='}${limit} items` : ` to be ${side === 'min' ? '>=' : '<='}${limit}`;
  e.push({ path: p, message: custom ?? `${side === 'min' ? 'Too small' : 'Too big'}: expected ${origin}${sizing}` });
}

/** A JSON object: not null, not an array (zod's `isObject`). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An object made by `{}` or JSON.parse, or one without a usable constructor (zod's `isPlainObject`, for records). */
export function isPlainObject(v: unknown): v is Record<PropertyKey, unknown> {
  if (!isObject(v)) return false;
  const ctor = (v as { constructor?: unknown }).constructor;
  if (ctor === undefined || typeof ctor !== 'function') return true;
  const prototype = (ctor as { prototype?: unknown }).prototype;
  if (!isObject(prototype)) return false;
  return Object.hasOwn(prototype, 'isPrototypeOf');
}

/** zod's name for what a value is: `null`, `array`, `NaN`, a class's name, or its `typeof`. */
function received(v: unknown): string {
  if (typeof v === 'number') return Number.isNaN(v) ? 'NaN' : Number.isFinite(v) ? 'number' : String(v);
  if (typeof v !== 'object') return typeof v;
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (Object.getPrototypeOf(v) !== Object.prototype && 'constructor' in v && v.constructor) return (v.constructor as { name: string }).name;
  return 'object';
}

/** zod's message for a value of the wrong type: `Invalid input: expected string, received number`. */
export function typeMessage(expected: string, v: unknown): string {
  return `Invalid input: expected ${expected}, received ${received(v)}`;
}
