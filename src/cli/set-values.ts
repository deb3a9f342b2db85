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
  const value = readValue(assignment.slice(equals + 1));
  checkAmount(assignment, segments.at(-1) ?? '', value);
  return segments.reduceRight<unknown>((nested, segment) => ({ [segment]: nested }), value) as Record<string, unknown>;
}

/**
 * `amount`, `net_amount`, `vat_amount` …: the catalog's amounts are integers in minor units. A
 * decimal there is the common slip (euros for cents), so it is explained here rather than
 * refused later by the schema as "expected int".
 */
function checkAmount(assignment: string, field: string, value: unknown): void {
  const isAmount = field === 'amount' || field.endsWith('_amount');
  if (!isAmount || typeof value !== 'number' || Number.isInteger(value)) return;
  const minorUnits = Math.round(value * MINOR_UNITS_PER_MAJOR);
  throw invalidSet(assignment, `amounts are integers in minor units (cents): ${field}=${minorUnits} for ${value.toFixed(2)}`);
}

/** Cents per euro: the example in the hint (the catalog's samples are in EUR). */
const MINOR_UNITS_PER_MAJOR = 100;

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
