import { z } from 'zod';
import { ConfigurationError } from './errors.js';

/**
 * Checks an options object against its zod schema when a factory runs, and turns the first
 * problem into a {@link ConfigurationError} with the one shape of details, `{ option, reason }`.
 * Schemas are strict: an option this version does not know is refused, not ignored.
 */
export function parseOptions<Schema extends z.ZodType>(schema: Schema, input: unknown, subject: string): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const { option, reason } = describeIssue(issue, input);
  throw new ConfigurationError({ option, reason }, `${subject}: ${option === '' ? 'options' : `option ${option}`} ${reason}`);
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): { option: string; reason: string } {
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    return { option: path === '' ? key : `${path}.${key}`, reason: 'is not an option' };
  }
  // zod leaves the input out of its issues unless asked to; the value is looked up instead.
  if (issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined) return { option: path, reason: 'is required' };
  return { option: path, reason: issue.message };
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((value, key) => (typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined), input);
}

/** A duration or count option: a finite number in a range. */
export function numberIn(min: number, max: number, { integer = false }: { integer?: boolean } = {}): z.ZodNumber {
  const kind = integer ? 'an integer' : 'a number';
  const base = integer ? z.number({ error: `must be ${kind}` }).int({ error: `must be ${kind}` }) : z.number({ error: `must be ${kind}` });
  const upper = max === Number.MAX_SAFE_INTEGER ? '' : ` to ${max}`;
  return base
    .min(min, { error: `must be ${kind} from ${min}${upper}` })
    .max(max, { error: `must be ${kind} from ${min}${upper}` });
}

/** A function option (a clock, a resolver, a hook). */
export function callable<Fn extends (...args: never[]) => unknown>(what: string): z.ZodType<Fn> {
  return z.custom<Fn>((value) => typeof value === 'function', { error: `must be a function ${what}` });
}

/** An instance of a class the package exports (checked with instanceof). */
export function instanceOf<T>(type: abstract new (...args: never[]) => T, hint: string): z.ZodType<T> {
  return z.custom<T>((value) => value instanceof type, { error: `must be ${hint}` });
}
