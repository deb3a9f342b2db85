import { ConfigurationError } from './errors.js';

/**
 * The option checks of the receiver's path (the receiver, its adapters, the inbox and ordering
 * options, the memory and SQLite stores), without zod. Why: importing zod costs a fresh process
 * about 30 ms, and a receiver in a serverless function pays it on every cold start; the events
 * are validated by generated code (src/events/validators.generated.ts), so these checks were the
 * last reason the receiver loaded zod. The features off that path (the dispatcher, the
 * dashboard, the sandbox, the CLI, postgresStore) keep their zod schemas (src/kernel/configuration.ts).
 *
 * The errors are the ones zod's schemas gave, issue for issue: a check reports the issues zod
 * would, in zod's order, with the same `continue` flag (which decides what a union reports), and
 * {@link checkOptions} turns the first one into the same `{ option, reason }`.
 * test/kernel/options-check.test.ts runs both on a table of inputs.
 */

/** One problem found, as zod reports it; internal. */
export interface OptionIssue {
  /** `type`: zod's invalid_type; `unknown`: an option this version does not know (`key`). */
  kind: 'type' | 'unknown' | 'other';
  path: readonly PropertyKey[];
  message: string;
  /** zod's `continue`: a union reports the issues of its one option that did not abort. */
  continue: boolean;
  key?: string;
}

/** Checks a value and returns what the options take (a trimmed string, a frozen copy of a list), adding any issue found. */
export type Check<T> = (value: unknown, path: readonly PropertyKey[], issues: OptionIssue[]) => T;

/** A property an object check may leave out; internal marker. */
export interface OptionalCheck<T> {
  optional: Check<T>;
}

type Field = Check<unknown> | OptionalCheck<unknown>;
type FieldOutput<F> = F extends OptionalCheck<infer T> ? T | undefined : F extends Check<infer T> ? T : never;
type ShapeOutput<Shape extends Record<string, Field>> = {
  [K in keyof Shape as Shape[K] extends OptionalCheck<unknown> ? never : K]: FieldOutput<Shape[K]>;
} & {
  [K in keyof Shape as Shape[K] extends OptionalCheck<unknown> ? K : never]?: FieldOutput<Shape[K]>;
};

/** Marks an object's property as one that may be left out (or given as undefined). */
export function optional<T>(check: Check<T>): OptionalCheck<T> {
  return { optional: check };
}

function push(issues: OptionIssue[], path: readonly PropertyKey[], message: string, kind: OptionIssue['kind'], stop: boolean): void {
  issues.push({ kind, path, message, continue: !stop });
}

/** zod's words for a value of the wrong type where the schema gave none (the options themselves not an object). */
function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN';
  return typeof value;
}

/** A duration or count option: a finite number in a range (as src/kernel/configuration.ts's `numberIn`). */
export function numberIn(min: number, max: number, { integer = false }: { integer?: boolean } = {}): Check<number> {
  const kind = integer ? 'an integer' : 'a number';
  const range = `must be ${kind} from ${min}${max === Number.MAX_SAFE_INTEGER ? '' : ` to ${max}`}`;
  return (value, path, issues) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      push(issues, path, `must be ${kind}`, 'type', true);
    } else if (integer && !Number.isInteger(value)) {
      push(issues, path, `must be ${kind}`, 'type', true);
    } else if (integer && !Number.isSafeInteger(value)) {
      // zod's integer check reports an unsafe integer (with the check's message) and checks no further.
      push(issues, path, `must be ${kind}`, 'other', false);
    } else {
      if (value < min) push(issues, path, range, 'other', false);
      if (value > max) push(issues, path, range, 'other', false);
    }
    return value as number;
  };
}

/** A number at least `min` (no more than the largest safe integer), one message for every failure. */
export function numberAtLeast(min: number, message: string): Check<number> {
  return (value, path, issues) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) push(issues, path, message, 'type', true);
    else {
      if (value < min) push(issues, path, message, 'other', false);
      if (value > Number.MAX_SAFE_INTEGER) push(issues, path, message, 'other', false);
    }
    return value as number;
  };
}

/** `true` or `false`. */
export function boolean(message: string): Check<boolean> {
  return (value, path, issues) => {
    if (typeof value !== 'boolean') push(issues, path, message, 'type', true);
    return value as boolean;
  };
}

/** One of the strings listed. */
export function oneOf<const T extends string>(values: readonly T[], message: string): Check<T> {
  return (value, path, issues) => {
    if (!values.includes(value as T)) push(issues, path, message, 'other', true);
    return value as T;
  };
}

/** Exactly this value. */
export function literal<const T>(expected: T, message: string): Check<T> {
  return (value, path, issues) => {
    if (value !== expected) push(issues, path, message, 'other', true);
    return value as T;
  };
}

/** A string; `trim` checks (and gives) it without the spaces around it; `minLength` and `prefix` each with their message. */
export function string(
  message: string,
  { trim = false, minLength, prefix }: { trim?: boolean; minLength?: [number, string]; prefix?: [string, string] } = {},
): Check<string> {
  return (value, path, issues) => {
    if (typeof value !== 'string') {
      push(issues, path, message, 'type', true);
      return value as string;
    }
    const text = trim ? value.trim() : value;
    if (minLength && text.length < minLength[0]) push(issues, path, minLength[1], 'other', false);
    if (prefix && !text.startsWith(prefix[0])) push(issues, path, prefix[1], 'other', false);
    return text;
  };
}

/** A value the predicate accepts; zod's `custom` with zod's default message when none is given. */
export function custom<T>(accepts: (value: unknown) => boolean, message = 'Invalid input'): Check<T> {
  return (value, path, issues) => {
    // zod's custom check gives up on a value it refuses (a union then reports itself).
    if (!accepts(value)) push(issues, path, message, 'other', true);
    return value as T;
  };
}

/** A function option (a clock, a resolver, a hook). */
export function callable<Fn extends (...args: never[]) => unknown>(what: string): Check<Fn> {
  return custom<Fn>((value) => typeof value === 'function', `must be a function ${what}`);
}

/** An instance of a class the package exports (checked with instanceof). */
export function instanceOf<T>(type: abstract new (...args: never[]) => T, hint: string): Check<T> {
  return custom<T>((value) => value instanceof type, `must be ${hint}`);
}

/** A Date or a number. */
export function dateOrNumber(message: string): Check<Date | number> {
  return (value, path, issues) => {
    const valid = typeof value === 'number' ? Number.isFinite(value) : value instanceof Date && !Number.isNaN(value.getTime());
    if (!valid) push(issues, path, message, 'other', true);
    return value as Date | number;
  };
}

/** A list, each item checked; the options keep a frozen copy (what they were given may change later). */
export function list<T>(item: Check<T>, message: string, minLength?: [number, string]): Check<readonly T[]> {
  return (value, path, issues) => {
    if (!Array.isArray(value)) {
      push(issues, path, message, 'type', true);
      return value as readonly T[];
    }
    const items = value.map((entry, index) => item(entry, [...path, index], issues));
    if (minLength && value.length < minLength[0]) push(issues, path, minLength[1], 'other', false);
    return Object.freeze(items);
  };
}

/**
 * The first option that takes the value; when none does, the issues of the one option that did
 * not give up (a list too short, a number out of range), else `message` for the whole value.
 */
export function union<A, B>(first: Check<A>, second: Check<B>, message: string): Check<A | B> {
  return (value, path, issues) => {
    const firstIssues: OptionIssue[] = [];
    const firstValue = first(value, path, firstIssues);
    if (firstIssues.length === 0) return firstValue;
    const secondIssues: OptionIssue[] = [];
    const secondValue = second(value, path, secondIssues);
    if (secondIssues.length === 0) return secondValue;
    const firstGoesOn = firstIssues.every((issue) => issue.continue);
    const secondGoesOn = secondIssues.every((issue) => issue.continue);
    if (firstGoesOn !== secondGoesOn) {
      issues.push(...(firstGoesOn ? firstIssues : secondIssues));
      return firstGoesOn ? firstValue : secondValue;
    }
    push(issues, path, message, 'other', true);
    return value as A | B;
  };
}

/**
 * An options object: each property checked in the shape's order, then any property the shape
 * does not name refused (`is not an option`), then `refine` when nothing else was wrong.
 */
export function strictObject<Shape extends Record<string, Field>>(
  shape: Shape,
  { message, refine }: { message?: string; refine?: { accepts: (value: ShapeOutput<Shape>) => boolean; path: string; message: string } } = {},
): Check<ShapeOutput<Shape>> {
  const keys = Object.keys(shape);
  return (value, path, issues) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      push(issues, path, message ?? `Invalid input: expected object, received ${typeName(value)}`, 'type', true);
      return value as ShapeOutput<Shape>;
    }
    const input = value as Record<string, unknown>;
    const output: Record<string, unknown> = {};
    const before = issues.length;
    for (const key of keys) {
      const field = shape[key]!;
      const given = input[key];
      if ('optional' in field) {
        if (given === undefined) {
          if (key in input) output[key] = undefined;
          continue;
        }
        output[key] = field.optional(given, [...path, key], issues);
      } else {
        output[key] = field(given, [...path, key], issues);
      }
    }
    // zod reports unknown keys without giving up (a union may still report them), after the properties.
    const unknown = Object.keys(input).filter((key) => !Object.hasOwn(shape, key));
    if (unknown.length > 0) issues.push({ kind: 'unknown', path, key: unknown[0]!, message: 'is not an option', continue: true });
    const result = output as ShapeOutput<Shape>;
    if (refine && issues.slice(before).every((issue) => issue.continue) && !refine.accepts(result)) {
      push(issues, [...path, refine.path], refine.message, 'other', false);
    }
    return result;
  };
}

/**
 * Checks an options object when a factory runs and turns the first problem into a
 * {@link ConfigurationError} with details `{ option, reason }`, as src/kernel/configuration.ts's
 * `parseOptions` does for a zod schema.
 */
export function checkOptions<T>(check: Check<T>, input: unknown, subject: string): T {
  const issues: OptionIssue[] = [];
  const output = check(input, [], issues);
  const issue = issues[0];
  if (issue === undefined) return output;
  const { option, reason } = describeIssue(issue, input);
  throw new ConfigurationError({ option, reason }, `${subject}: ${option === '' ? 'options' : `option ${option}`} ${reason}`);
}

/** A factory's positional argument (a file name, a database) checked like an option named `name`. */
export function checkArgument<T>(check: Check<T>, name: string, value: unknown, subject: string): T {
  return checkOptions(strictObject({ [name]: check }), { [name]: value }, subject)[name] as T;
}

function describeIssue(issue: OptionIssue, input: unknown): { option: string; reason: string } {
  const path = issue.path.map(String).join('.');
  if (issue.kind === 'unknown') return { option: path === '' ? issue.key! : `${path}.${issue.key}`, reason: issue.message };
  if (issue.kind === 'type' && valueAt(input, issue.path) === undefined) return { option: path, reason: 'is required' };
  return { option: path, reason: issue.message };
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((value, key) => (typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined), input);
}
