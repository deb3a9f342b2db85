import { mergeDeep } from '../events/merge.js';
import { CliError } from './errors.js';

/** Keys that would reach an object's prototype; a `--set` path never needs them. */
const UNSAFE_SEGMENTS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * `--set data.object.amount=5000` → `{ data: { object: { amount: 5000 } } }`. The value is read
 * as JSON when it is JSON (`5000`, `true`, `null`, `"0042"`, `{"code":"x"}`, `[1,2]`) and as a
 * plain string otherwise (`RE-2026-0042`); quote it as a JSON string to keep digits a string.
 */
export function parseSetValue(assignment: string): Record<string, unknown> {
  const equals = assignment.indexOf('=');
  if (equals <= 0) throw invalidSet(assignment, 'expected path=value, e.g. data.object.amount=5000');
  const segments = assignment.slice(0, equals).split('.');
  if (segments.some((segment) => segment === '' || UNSAFE_SEGMENTS.has(segment))) {
    throw invalidSet(assignment, 'the path must be dot-separated field names, e.g. data.object.amount');
  }
  return segments.reduceRight<unknown>((value, segment) => ({ [segment]: value }), readValue(assignment.slice(equals + 1))) as Record<string, unknown>;
}

/** `base` with every `--set` merged in, in order: objects merge, everything else is replaced. */
export function applySetValues<T>(base: T, assignments: readonly string[]): T {
  return assignments.reduce<T>((value, assignment) => mergeDeep(value, parseSetValue(assignment)), base);
}

function readValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function invalidSet(assignment: string, reason: string): CliError {
  return new CliError('INVALID_OPTION', `--set ${assignment}: ${reason}`, { option: '--set', value: assignment });
}
