import type { z } from 'zod';
import { SandboxError } from '../errors.js';

/**
 * A request body or query checked by its schema; the first problem becomes VALIDATION_ERROR
 * with the document's `{ field, reason }` (422). Schemas are strict: an unknown field is refused.
 */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : String(part))).join('.').replaceAll('.[', '[');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    throw SandboxError.validation(path === '' ? key : `${path}.${key}`, 'is not a field of this request');
  }
  if (issue.code === 'invalid_type' && issue.input === undefined) throw SandboxError.validation(path, 'is required');
  throw SandboxError.validation(path, issue.message);
}
