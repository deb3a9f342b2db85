import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { EVENT_CATALOG, EVENT_GROUPS, EVENT_TYPES } from './catalog.js';
import { EVENT_DOCS } from './docs.js';
import { EVENT_SCHEMAS } from './schemas.js';

/*
 * Writes src/events/validators.generated.ts from the zod schemas of the event catalog: one plain
 * function per schema node that checks a value the way zod's `safeParse` does and returns what
 * it returns (a copy, objects' listed keys first in the schema's order, then the unlisted ones as
 * they came), without loading zod. The receiver's request path and parseEvent use the generated
 * functions, so a cold start never imports zod (bench/history.md, cold start); zod stays the
 * one source: this file reads the schemas, test/events/validators.test.ts fails while the
 * committed file differs from what it writes, and test/events/validators-differential.test.ts
 * runs both on generated and mutated events and requires the same verdict, the same parsed
 * event and the same failing fields.
 *
 * Each generated function takes (value, issues, path). Without `issues` it stops at the first
 * problem and returns FAIL (the fast path); with an array it collects every problem with its path
 * and message, in zod's words (the slow path, for a refused event only).
 */

/** The file the generator writes, relative to the repository. */
export const VALIDATORS_FILE = 'src/events/validators.generated.ts';

type Schema = z.core.$ZodType;
interface Def {
  type: string;
  format?: string;
  pattern?: RegExp;
  checks?: Schema[];
  shape?: Record<string, Schema>;
  catchall?: Schema;
  innerType?: Schema;
  element?: Schema;
  keyType?: Schema;
  valueType?: Schema;
  values?: unknown[];
  entries?: Record<string, unknown>;
  error?: (issue: unknown) => unknown;
}
interface CheckDef {
  check: string;
  format?: string;
  pattern?: RegExp;
  minimum?: number;
  maximum?: number;
  value?: number;
  inclusive?: boolean;
  error?: (issue: unknown) => unknown;
}

const defOf = (schema: Schema): Def => schema._zod.def as unknown as Def;
const checkDefOf = (check: Schema): CheckDef => check._zod.def as unknown as CheckDef;

/** A custom message (`{ error: '…' }`) of a schema or check, or undefined for zod's default wording. */
function customMessage(def: { error?: (issue: unknown) => unknown }): string | undefined {
  const message = def.error?.({});
  return typeof message === 'string' ? message : undefined;
}

const literal = (value: unknown): string => JSON.stringify(value);
const regex = (pattern: RegExp): string => `/${pattern.source}/${pattern.flags}`;

class Generator {
  private readonly functions: string[] = [];
  private readonly byBody = new Map<string, string>();
  private readonly constants: string[] = [];
  private readonly byConstant = new Map<string, string>();

  /** The name of a module-level constant holding `expression` (regular expressions, key sets). */
  constant(expression: string): string {
    let name = this.byConstant.get(expression);
    if (name === undefined) {
      name = `C${this.byConstant.size}`;
      this.byConstant.set(expression, name);
      this.constants.push(`const ${name} = ${expression};`);
    }
    return name;
  }

  /** The name of the function validating `schema`: one per distinct body. */
  node(schema: Schema): string {
    const body = this.body(schema);
    let name = this.byBody.get(body);
    if (name === undefined) {
      name = `v${this.byBody.size}`;
      this.byBody.set(body, name);
      this.functions.push(`function ${name}(v: unknown, e: Issue[] | undefined, p: Path): unknown {\n${body}\n}`);
    }
    return name;
  }

  private body(schema: Schema): string {
    const def = defOf(schema);
    switch (def.type) {
      case 'object':
        return this.object(def);
      case 'record':
        return this.record(def);
      case 'array':
        return [
          `  if (!Array.isArray(v)) return e === undefined ? FAIL : bad(e, p, ${this.typeMessage(def, 'array')});`,
          '  const r: unknown[] = new Array(v.length);',
          '  let ok = true;',
          '  for (let i = 0; i < v.length; i++) {',
          `    const x = ${this.node(def.element!)}(v[i], e, e === undefined ? p : [...p, i]);`,
          '    if (x === FAIL) { if (e === undefined) return FAIL; ok = false; }',
          '    r[i] = x;',
          '  }',
          '  return ok ? r : FAIL;',
        ].join('\n');
      case 'nullable':
        return `  return v === null ? null : ${this.node(def.innerType!)}(v, e, p);`;
      case 'optional':
        return `  return v === undefined ? undefined : ${this.node(def.innerType!)}(v, e, p);`;
      case 'literal': {
        const values = def.values!;
        const test = values.map((value) => `v === ${literal(value)}`).join(' || ');
        const message = customMessage(def) ?? (values.length === 1 ? `Invalid input: expected ${stringifyPrimitive(values[0])}` : `Invalid option: expected one of ${values.map(stringifyPrimitive).join('|')}`);
        return `  return ${test} ? v : bad(e, p, ${literal(message)});`;
      }
      case 'enum': {
        const values = Object.values(def.entries!);
        const test = values.map((value) => `v === ${literal(value)}`).join(' || ');
        const message = customMessage(def) ?? `Invalid option: expected one of ${values.map(stringifyPrimitive).join('|')}`;
        return `  return ${test} ? v : bad(e, p, ${literal(message)});`;
      }
      case 'boolean':
        return `  return typeof v === 'boolean' ? v : e === undefined ? FAIL : bad(e, p, ${this.typeMessage(def, 'boolean')});`;
      case 'string':
        return this.string(schema, def);
      case 'number':
        return this.number(def);
      default:
        throw new Error(`validator-source: no generator for a zod ${def.type} schema`);
    }
  }

  /** The invalid_type message: the schema's own, or zod's with what was received. */
  private typeMessage(def: Def, expected: string): string {
    const custom = customMessage(def);
    return custom === undefined ? `typeMessage(${literal(expected)}, v)` : literal(custom);
  }

  private object(def: Def): string {
    const shape = def.shape!;
    if (def.catchall === undefined || defOf(def.catchall).type !== 'unknown') {
      throw new Error('validator-source: only loose objects (record() in src/events/fields.ts) are generated');
    }
    const keys = Object.keys(shape).filter((key) => key !== '__proto__');
    // A table of the fields (key, validator, optional) walked by `object` in validate.ts: the
    // same checks as code written out per field, at a fraction of the size.
    const fields = keys.map((key) => {
      const field = shape[key]!;
      const optional = field._zod.optin === 'optional' && field._zod.optout === 'optional';
      return `[${literal(key)}, ${this.node(field)}, ${optional}]`;
    });
    const table = this.constant(`[${fields.join(', ')}] as const`);
    const listed = this.constant(`new Set(${literal(keys)})`);
    const custom = customMessage(def);
    return `  return object(v, e, p, ${table}, ${listed}${custom === undefined ? '' : `, ${literal(custom)}`});`;
  }

  private record(def: Def): string {
    const key = this.node(def.keyType!);
    const value = this.node(def.valueType!);
    return [
      `  if (!isPlainObject(v)) return e === undefined ? FAIL : bad(e, p, ${this.typeMessage(def, 'record')});`,
      '  const r: Record<PropertyKey, unknown> = {};',
      '  let ok = true;',
      '  for (const k of Reflect.ownKeys(v)) {',
      "    if (k === '__proto__' || !Object.prototype.propertyIsEnumerable.call(v, k)) continue;",
      '    const at = e === undefined ? p : [...p, k];',
      `    if (${key}(k, undefined, p) === FAIL) {`,
      "      if (e === undefined) return FAIL;",
      "      e.push({ path: at, message: 'Invalid key in record' });",
      '      ok = false;',
      '      continue;',
      '    }',
      `    const x = ${value}((v as Record<PropertyKey, unknown>)[k], e, at);`,
      '    if (x === FAIL) { if (e === undefined) return FAIL; ok = false; }',
      '    r[k] = x;',
      '  }',
      '  return ok ? r : FAIL;',
    ].join('\n');
  }

  private string(schema: Schema, def: Def): string {
    // A value of another type fails; zod then still runs the length checks on anything with a
    // `length` (an array, say), and so does the slow path here.
    const lengths = (def.checks ?? [])
      .map(checkDefOf)
      .filter((c) => c.check === 'min_length' || c.check === 'max_length')
      .map((c) => (c.check === 'min_length' ? `lengthIssue(e, p, v, 'min', ${c.minimum}, ${literal(customMessage(c) ?? null)});` : `lengthIssue(e, p, v, 'max', ${c.maximum}, ${literal(customMessage(c) ?? null)});`));
    const lines = [
      lengths.length === 0
        ? `  if (typeof v !== 'string') return e === undefined ? FAIL : bad(e, p, ${this.typeMessage(def, 'string')});`
        : `  if (typeof v !== 'string') { if (e === undefined) return FAIL; bad(e, p, ${this.typeMessage(def, 'string')}); ${lengths.join(' ')} return FAIL; }`,
      '  let ok = true;',
    ];
    const fail = (message: string) => `{ if (e === undefined) return FAIL; e.push({ path: p, message: ${literal(message)} }); ok = false; }`;
    if (def.format !== undefined) {
      // A string format (z.iso.datetime, z.iso.date, z.email): the schema is its own first check.
      lines.push(`  if (!${this.constant(regex(def.pattern!))}.test(v)) ${fail(customMessage(def) ?? formatMessage(def.format))}`);
    }
    for (const check of def.checks ?? []) {
      const c = checkDefOf(check);
      switch (c.check) {
        case 'min_length':
          // Lengths count code points, as zod does: only a length near the limit needs counting.
          lines.push(`  if (v.length < ${c.minimum} || (v.length < ${2 * c.minimum!} && codePoints(v) < ${c.minimum})) ${fail(customMessage(c) ?? `Too small: expected string to have >=${c.minimum} characters`)}`);
          break;
        case 'max_length':
          lines.push(`  if (v.length > ${c.maximum} && codePoints(v) > ${c.maximum}) ${fail(customMessage(c) ?? `Too big: expected string to have <=${c.maximum} characters`)}`);
          break;
        case 'string_format':
          if (c.format !== 'regex') throw new Error(`validator-source: no generator for the string check ${c.format}`);
          lines.push(`  if (!${this.constant(regex(c.pattern!))}.test(v)) ${fail(customMessage(c) ?? `Invalid string: must match pattern ${String(c.pattern)}`)}`);
          break;
        case 'custom': {
          // A refinement is code; what it checks is written beside it as a JSON Schema condition
          // (src/events/docs.ts): the generated check is that condition, and the differential test
          // holds it to the refinement.
          const docs = EVENT_DOCS.get(schema);
          const condition = docs?.if?.pattern;
          const consequence = docs?.then?.pattern;
          if (typeof condition !== 'string' || typeof consequence !== 'string') {
            throw new Error('validator-source: a refinement needs its JSON Schema condition (if/then patterns) in its docs');
          }
          // zod runs a refinement only when nothing before it failed for good (regex failures do not stop it).
          lines.push(`  if (!${this.constant(regex(new RegExp(condition, 'u')))}.test(v) || ${this.constant(regex(new RegExp(consequence, 'u')))}.test(v)) {} else ${fail(customMessage(c) ?? 'Invalid input')}`);
          break;
        }
        default:
          throw new Error(`validator-source: no generator for the string check ${c.check}`);
      }
    }
    lines.push('  return ok ? v : FAIL;');
    return lines.join('\n');
  }

  private number(def: Def): string {
    const lines = [`  if (typeof v !== 'number' || !Number.isFinite(v)) return e === undefined ? FAIL : bad(e, p, ${this.typeMessage(def, 'number')});`];
    lines.push('  let ok = true;');
    if (def.format === 'safeint') {
      // Not an integer: refused, nothing else checked. Outside the safe range: refused, and the
      // other checks still run (zod's issue does not abort unless the schema says so).
      const outside = (message: string) =>
        (def as { abort?: boolean }).abort ? `return bad(e, p, ${literal(message)});` : `{ if (e === undefined) return FAIL; e.push({ path: p, message: ${literal(message)} }); ok = false; }`;
      lines.push(
        `  if (!Number.isInteger(v)) return bad(e, p, ${literal(customMessage(def) ?? 'Invalid input: expected int, received number')});`,
        `  if (v > Number.MAX_SAFE_INTEGER) ${outside(customMessage(def) ?? `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}`)}`,
        `  else if (v < Number.MIN_SAFE_INTEGER) ${outside(customMessage(def) ?? `Too small: expected int to be >=${Number.MIN_SAFE_INTEGER}`)}`,
      );
    } else if (def.format !== undefined) {
      throw new Error(`validator-source: no generator for the number format ${def.format}`);
    }
    for (const check of def.checks ?? []) {
      const c = checkDefOf(check);
      const op = c.check === 'greater_than' ? (c.inclusive ? '>=' : '>') : c.inclusive ? '<=' : '<';
      if (c.check !== 'greater_than' && c.check !== 'less_than') throw new Error(`validator-source: no generator for the number check ${c.check}`);
      const message = customMessage(c) ?? `${c.check === 'greater_than' ? 'Too small' : 'Too big'}: expected number to be ${op}${c.value}`;
      lines.push(`  if (!(v ${op} ${c.value})) { if (e === undefined) return FAIL; e.push({ path: p, message: ${literal(message)} }); ok = false; }`);
    }
    lines.push('  return ok ? v : FAIL;');
    return lines.join('\n');
  }

  source(types: readonly string[], validators: Record<string, string>, table: string): string {
    return [
      '// Generated by src/events/validator-source.ts from the zod schemas of the event catalog: do not edit.',
      '// `npm run build` rewrites it; test/events/validators.test.ts fails while it is stale.',
      "import { bad, codePoints, FAIL, isPlainObject, lengthIssue, object, typeMessage, type Issue, type Path } from './validate.js';",
      '',
      '/* eslint-disable */',
      '',
      `/** One of the ${types.length} event types the platform sends. */`,
      `export type EventType = ${types.map((type) => literal(type)).join(' | ')};`,
      '',
      '/** Each event type: the object its events carry, its stage in the object\'s life, whether it is the creation event. */',
      `export const EVENT_TABLE = ${table} as const;`,
      '',
      ...this.constants,
      '',
      ...this.functions,
      '',
      '/** The validator of each event type: the parsed event, or FAIL (with `issues` given: every problem in it). */',
      `export const EVENT_VALIDATORS: { readonly [T in EventType]: (v: unknown, e: Issue[] | undefined, p: Path) => unknown } = {`,
      ...types.map((type) => `  ${literal(type)}: ${validators[type]},`),
      '};',
      '',
    ].join('\n');
  }
}

function stringifyPrimitive(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : String(value);
}

const FORMAT_NAMES: Record<string, string> = { datetime: 'ISO datetime', date: 'ISO date', email: 'email address' };

function formatMessage(format: string): string {
  const name = FORMAT_NAMES[format];
  if (name === undefined) throw new Error(`validator-source: no generator for the string format ${format}`);
  return `Invalid ${name}`;
}

/** The text of src/events/validators.generated.ts, from the schemas as they are now. */
export function eventValidatorsSource(): string {
  const generator = new Generator();
  const validators = Object.fromEntries(EVENT_TYPES.map((type) => [type, generator.node(EVENT_SCHEMAS[type])]));
  const table = `{\n${EVENT_TYPES.map((type) => {
    const entry = EVENT_CATALOG[type];
    const creation = 'creation' in entry ? ', creation: true' : '';
    return `  ${literal(type)}: { object: ${literal(EVENT_GROUPS[entry.group].object)}, stage: ${entry.stage}${creation} },`;
  }).join('\n')}\n}`;
  return generator.source(EVENT_TYPES, validators, table);
}

/**
 * Rewrites src/events/validators.generated.ts under `root` when it differs from what the schemas
 * generate (`npm run build`); true when it did, so that the build compiles the new file.
 */
export function writeEventValidators(root = process.cwd()): boolean {
  const file = join(root, VALIDATORS_FILE);
  const source = eventValidatorsSource();
  if (readFileSync(file, 'utf8') === source) return false;
  writeFileSync(file, source);
  console.log(`validators: ${VALIDATORS_FILE} rewritten from the zod schemas`);
  return true;
}
