import fc from 'fast-check';
import { isJsonObject, type JsonObject, type JsonValue } from '../../src/catalog/json.js';

/*
 * fast-check arbitraries for the differential test: valid events built from a type's JSON Schema
 * (patterns through fc.stringMatching), and mutations of them of the kinds a sender or an
 * attacker produces. The oracle is never the JSON Schema: zod decides, ajv must agree.
 */

export type Path = readonly (string | number)[];

/** The node `node` stands for in `root`: `$ref: '#/$defs/X'` followed, its siblings (descriptions) kept. */
function resolve(root: JsonObject, node: JsonObject): JsonObject {
  if (typeof node.$ref !== 'string') return node;
  const { $ref, ...siblings } = node;
  const target = (root.$defs as JsonObject)[$ref.replace('#/$defs/', '')] as JsonObject;
  return { ...resolve(root, target), ...siblings };
}

const ANY_JSON = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>;

const byPattern = new Map<string, fc.Arbitrary<string>>();

function matching(pattern: string): fc.Arbitrary<string> {
  if (!byPattern.has(pattern)) byPattern.set(pattern, fc.stringMatching(new RegExp(pattern, 'u')));
  return byPattern.get(pattern)!;
}

function stringOf(schema: JsonObject): fc.Arbitrary<string> {
  if (typeof schema.pattern === 'string') return matching(schema.pattern);
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : 40;
  return fc.oneof(
    fc.string({ minLength, maxLength, unit: 'grapheme-ascii' }),
    fc.string({ minLength, maxLength, unit: 'grapheme' }),
    fc.string({ minLength, maxLength, unit: 'binary' }),
  );
}

function numberOf(schema: JsonObject, integer: boolean): fc.Arbitrary<number> {
  const exclusive = typeof schema.exclusiveMinimum === 'number';
  const min = (exclusive ? schema.exclusiveMinimum : schema.minimum) as number | undefined;
  const max = schema.maximum as number | undefined;
  if (integer) {
    return fc.integer({ min: min === undefined ? Number.MIN_SAFE_INTEGER : exclusive ? min + 1 : min, max: max ?? Number.MAX_SAFE_INTEGER });
  }
  return fc.double({ noNaN: true, noDefaultInfinity: true, ...(min === undefined ? {} : { min, minExcluded: exclusive }), ...(max === undefined ? {} : { max }) });
}

function objectOf(root: JsonObject, schema: JsonObject): fc.Arbitrary<JsonValue> {
  const properties = (schema.properties ?? {}) as JsonObject;
  const required = new Set((schema.required ?? []) as string[]);
  const listed = fc.record(
    Object.fromEntries(Object.entries(properties).map(([key, property]) => [key, validValue(root, property as JsonObject)])),
    { requiredKeys: [...required] },
  );
  if (isJsonObject(schema.propertyNames) && isJsonObject(schema.additionalProperties)) {
    // A map (`figures`): keys of a pattern, values of a schema.
    return fc.dictionary(stringOf(schema.propertyNames), validValue(root, schema.additionalProperties), { maxKeys: 4 });
  }
  // Fields the platform may add later: any key not listed, any value.
  const extra = fc.dictionary(fc.string({ maxLength: 12 }).filter((key) => !(key in properties)), ANY_JSON, { maxKeys: 2 });
  return fc.tuple(listed, fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: extra })).map(([fields, more]) => withKeys(fields, more));
}

/** A value `schema` (a node of `root`) accepts — as far as a generator can tell; zod has the last word. */
export function validValue(root: JsonObject, node: JsonObject): fc.Arbitrary<JsonValue> {
  const schema = resolve(root, node);
  if (Array.isArray(schema.anyOf)) return fc.oneof(...schema.anyOf.map((branch) => validValue(root, branch as JsonObject)));
  if ('const' in schema) return fc.constant(schema.const!);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => validValue(root, { ...schema, type })));
  switch (schema.type) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return numberOf(schema, true);
    case 'number':
      return numberOf(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(validValue(root, schema.items as JsonObject), { maxLength: 3 });
    case 'object':
      return objectOf(root, schema);
    default:
      throw new Error(`No generator for ${JSON.stringify(schema)}`);
  }
}

/** Sets an own key, `__proto__` included (as JSON.parse makes it), where `copy[key] =` would set the prototype. */
function define(object: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A copy of `object` with `more` added as own keys. */
function withKeys(object: JsonObject, more: JsonObject): JsonObject {
  const copy: JsonObject = {};
  for (const [key, value] of [...Object.entries(object), ...Object.entries(more)]) define(copy, key, value);
  return copy;
}

/** Every path into `value` (not the root itself). */
export function pathsOf(value: JsonValue, prefix: Path = []): Path[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => [[...prefix, index], ...pathsOf(item, [...prefix, index])]);
  if (!isJsonObject(value)) return [];
  return Object.entries(value).flatMap(([key, item]) => [[...prefix, key], ...pathsOf(item, [...prefix, key])]);
}

function valueAt(value: JsonValue, path: Path): JsonValue | undefined {
  return path.reduce<JsonValue | undefined>((node, key) => (node !== null && typeof node === 'object' ? (node as Record<string | number, JsonValue>)[key] : undefined), value);
}

/** A deep copy of `value` with the node at `path` replaced (`undefined`: the key removed, the item dropped). */
export function replaceAt(value: JsonValue, path: Path, replacement: JsonValue | undefined): JsonValue {
  if (path.length === 0) return replacement ?? null;
  const [key, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    const next = rest.length === 0 ? replacement : replaceAt(copy[key as number]!, rest, replacement);
    if (next === undefined) copy.splice(key as number, 1);
    else copy[key as number] = next;
    return copy;
  }
  const object = value as JsonObject;
  const name = key as string;
  const current = Object.hasOwn(object, name) ? object[name]! : null;
  const next = rest.length === 0 ? replacement : replaceAt(current, rest, replacement);
  const copy = withKeys({}, {});
  for (const [field, item] of Object.entries(object)) {
    if (field !== name) define(copy, field, item);
    else if (next !== undefined) define(copy, field, next);
  }
  if (!Object.hasOwn(object, name) && next !== undefined) define(copy, name, next);
  return copy;
}

/** What a mutation did, for the counts the test prints. */
export type MutationKind = 'wrong type' | 'missing field' | 'extra field' | 'amount out of range' | 'bad date' | 'near-miss string' | 'event type' | 'boundary length';

const WRONG_TYPES: JsonValue[] = [null, true, false, 0, 1, -1, 1.5, '', 'x', '1', 'null', '2026-11-12T07:45:00.000Z', [], [1], {}, { a: 1 }];
const AMOUNTS: number[] = [
  2 ** 53, -(2 ** 53), 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53 + 2, 1e21, -1e21, 1e300, -1e300, 1.5, -0.5, 0.1 + 0.2, 5e-324, 0, -0, -1, 1, 100, 12.0,
];
const BAD_DATES: string[] = [
  '2025-02-29T00:00:00Z', '2024-02-30T00:00:00Z', '2026-13-01T00:00:00Z', '2026-00-10T00:00:00Z', '2026-04-31T12:00:00Z',
  '2026-11-12T24:00:00Z', '2026-11-12T23:60:00Z', '2026-11-12T23:59:60Z', '2026-11-12T07:45Z', '2026-11-12T07:45:00',
  '2026-11-12t07:45:00z', '2026-11-12 07:45:00Z', '2026-11-12T07:45:00.Z', '2026-11-12T07:45:00+0100', '2026-11-12T07:45:00+01',
  '2026-11-12T07:45:00+24:00', '2026-11-12T07:45:00-23:59', '2026-11-12', '26-11-12T07:45:00Z', '+2026-11-12T07:45:00Z',
  '2026-11-12T07:45:00.000000001Z', '2024-02-29T00:00:00Z', '2000-02-29T00:00:00Z', '1900-02-29T00:00:00Z', '2026-11-12T7:45:00Z',
  '2025-02-29', '2024-02-29', '2026-11-31', '2026-1-05', '2026-11-12T00:00:00.000Z ', ' 2026-11-12', '２０２６-11-12',
];
const EDIT_ALPHABET = [...'0123456789azAZTZ-_:.+@/ ', 'é', 'ß', '€', '😀', '\u0000', '\n', '\u200b'];
const KEYS = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'amount', 'id', 'type', 'status', '', ' '),
);
const EXTRA_VALUES = fc.oneof(ANY_JSON, fc.constantFrom<JsonValue>({ prototype: {} }, { prototype: { polluted: true } }));

function edit(text: string): fc.Arbitrary<string> {
  const chars = [...text];
  return fc.tuple(fc.nat(chars.length), fc.constantFrom('insert', 'delete', 'replace'), fc.constantFrom(...EDIT_ALPHABET)).map(([at, how, char]) => {
    const copy = [...chars];
    if (how === 'insert') copy.splice(at, 0, char);
    else if (how === 'delete') copy.splice(at, 1);
    else copy.splice(at, 1, char);
    return copy.join('');
  });
}

/**
 * A mutation of `event` at one of its nodes: the kind, and the mutated event. Kinds that need a
 * node of some sort (a number, a string, an object) fall back to `wrong type` where there is none.
 */
export function mutationOf(event: JsonValue, knownTypes: readonly string[]): fc.Arbitrary<{ kind: MutationKind; value: JsonValue }> {
  const paths = pathsOf(event);
  const pick = <T>(candidates: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...candidates);
  const where = (test: (node: JsonValue | undefined, path: Path) => boolean): Path[] => paths.filter((path) => test(valueAt(event, path), path));
  const numbers = where((node) => typeof node === 'number');
  const strings = where((node) => typeof node === 'string');
  const dates = where((node) => typeof node === 'string' && /^\d{4}-\d\d-\d\d/.test(node));
  const objects: Path[] = [[], ...where((node) => isJsonObject(node ?? null))];
  const keyed = paths.filter((path) => typeof path.at(-1) === 'string');
  const bounded = where((_node, path) => ['id', 'business_id', 'correlation_id', 'customer_id', 'invoice_id'].includes(String(path.at(-1))));
  const mutations: fc.Arbitrary<{ kind: MutationKind; value: JsonValue }>[] = [
    fc.tuple(pick(paths), fc.oneof(pick(WRONG_TYPES), ANY_JSON)).map(([path, value]) => ({ kind: 'wrong type', value: replaceAt(event, path, value) })),
    fc.tuple(pick(keyed), fc.constant(undefined)).map(([path]) => ({ kind: 'missing field', value: replaceAt(event, path, undefined) })),
    fc.tuple(pick(objects), KEYS, EXTRA_VALUES).map(([path, key, value]) => ({ kind: 'extra field', value: replaceAt(event, [...path, key], value) })),
    fc
      .constantFrom(...knownTypes, 'invoice.payed', 'invoice', 'INVOICE.PAID', 'invoice.paid ', '', '*')
      .map((type) => ({ kind: 'event type' as const, value: replaceAt(event, ['type'], type) })),
  ];
  if (numbers.length > 0) {
    mutations.push(
      fc.tuple(pick(numbers), fc.oneof(pick(AMOUNTS), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }))).map(([path, value]) => ({
        kind: 'amount out of range',
        value: replaceAt(event, path, value),
      })),
    );
  }
  if (dates.length > 0) {
    mutations.push(
      fc
        .tuple(pick(dates), fc.oneof(pick(BAD_DATES), fc.date({ noInvalidDate: true }).map((date) => date.toISOString())))
        .map(([path, value]) => ({ kind: 'bad date', value: replaceAt(event, path, value) })),
    );
  }
  if (strings.length > 0) {
    mutations.push(
      pick(strings).chain((path) => edit(valueAt(event, path) as string).map((value) => ({ kind: 'near-miss string' as const, value: replaceAt(event, path, value) }))),
    );
  }
  if (bounded.length > 0) {
    // Ids at and past the 255 limit, in ASCII and in characters outside the Basic Multilingual Plane (two UTF-16 units each).
    const lengths = fc.constantFrom(127, 128, 200, 254, 255, 256);
    const text = fc.tuple(lengths, fc.constantFrom('a', '😀', 'ä')).map(([length, char]) => char.repeat(length));
    mutations.push(fc.tuple(pick(bounded), text).map(([path, value]) => ({ kind: 'boundary length', value: replaceAt(event, path, value) })));
  }
  return fc.oneof(...mutations);
}
