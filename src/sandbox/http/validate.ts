import type { z } from 'zod';
import { SandboxError } from '../errors.js';

/**
 * A request body checked by its schema; the first problem becomes VALIDATION_ERROR with the
 * document's `{ field, reason }` (422), the reason saying what is wrong with the value sent: a
 * missing field "is required", a value of the wrong JSON type "must be a number, not a string",
 * otherwise the schema's own reason ("must be an integer number of cents"). A body that is not a
 * JSON object is refused as a whole. Schemas are strict: an unknown field is refused.
 */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input))) {
    throw SandboxError.validation('', `the body must be a JSON object, not ${jsonKind(input)}`);
  }
  const body = input ?? {};
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : String(part))).join('.').replaceAll('.[', '[');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    throw SandboxError.validation(path === '' ? key : `${path}.${key}`, 'is not a field of this request');
  }
  // zod leaves the value out of its issues: it is looked up in the body.
  const value = valueAt(body, issue.path);
  if (issue.code === 'invalid_type') {
    if (value === undefined) throw SandboxError.validation(path, 'is required');
    const expected = EXPECTED[issue.expected];
    if (expected !== undefined && jsonKind(value) !== expected) throw SandboxError.validation(path, `must be ${expected}, not ${jsonKind(value)}`);
  }
  throw SandboxError.validation(path, issue.message);
}

/** What zod's `expected` of a type mismatch means, in the words of {@link jsonKind}. */
const EXPECTED: Partial<Record<string, string>> = {
  number: 'a number',
  int: 'a number',
  string: 'a string',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
};

/** A JSON value's kind, as a reason names it: `a string`, `a number`, `null` … */
function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'true or false';
    default:
      return 'an object';
  }
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((value, key) => (typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined), input);
}
