import { isDeepStrictEqual } from 'node:util';
import type { EventType } from '../../events/catalog.js';
import type { SandboxContext } from '../context.js';
import { ok, type SandboxResponse } from '../http/response.js';
import type { ObjectKind, SandboxObjects } from '../objects.js';

/** The earlier values of the fields that differ (`previous_attributes`), or null when none does. */
export function changedFields<T extends object>(before: T, after: T): Partial<T> | null {
  const changed = (Object.keys(after) as (keyof T)[]).filter((key) => !isDeepStrictEqual(before[key], after[key]));
  return changed.length === 0 ? null : (Object.fromEntries(changed.map((key) => [key, before[key]])) as Partial<T>);
}

/** The fields of an update that were given (zod leaves `undefined` for the others). */
export function definedFields<T extends object>(input: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/*
 * The object's layout is the event's (the Dispatcher validates every event with the package's
 * schemas before it stores it), so the casts below only bridge "an object of this kind" and
 * "the object of this event type", which TypeScript cannot relate.
 */

/** Stores a new object, emits its creation event, answers 201 with it. */
export async function createObject<K extends ObjectKind>(context: SandboxContext, kind: K, type: EventType, object: SandboxObjects[K]): Promise<SandboxResponse> {
  context.objects.insert(kind, object);
  await context.emitter.emit(type, object as never);
  return ok(object, 201);
}

/** Stores a changed object and emits `type` with the earlier values of what changed; a change that changes nothing emits nothing. */
export async function updateObject<K extends ObjectKind>(context: SandboxContext, kind: K, type: EventType, before: SandboxObjects[K], after: SandboxObjects[K]): Promise<SandboxResponse> {
  const previous = changedFields(before, after);
  if (previous === null) return ok(before);
  context.objects.save(kind, after);
  await context.emitter.emit(type, after as never, previous as never);
  return ok(after);
}
