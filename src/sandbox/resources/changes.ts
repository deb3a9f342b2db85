import { isDeepStrictEqual } from 'node:util';

/** The earlier values of the fields that differ (`previous_attributes`), or null when none does. */
export function changedFields<T extends object>(before: T, after: T): Partial<T> | null {
  const changed = (Object.keys(after) as (keyof T)[]).filter((key) => !isDeepStrictEqual(before[key], after[key]));
  return changed.length === 0 ? null : (Object.fromEntries(changed.map((key) => [key, before[key]])) as Partial<T>);
}

/** The fields of an update that were given (zod leaves `undefined` for the others). */
export function definedFields<T extends object>(input: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
