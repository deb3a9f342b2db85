import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { catalogDocuments } from '../../src/catalog/documents.js';
import type { JsonObject, JsonValue } from '../../src/catalog/json.js';
import { EVENT_TYPES, type EventType } from '../../src/events/catalog.js';
import { EVENT_SCHEMAS } from '../../src/events/schemas.js';
import { FAIL, type Issue } from '../../src/events/validate.js';
import { EVENT_VALIDATORS } from '../../src/events/validators.generated.js';
import { mutationOf, validValue, type MutationKind } from '../catalog/arbitraries.js';

/*
 * The validators generated from the zod schemas (src/events/validators.generated.ts, what the
 * receiver and parseEvent run) against zod itself, on the events of the catalog's differential
 * test (test/catalog/arbitraries.ts): valid events of every type and mutations of them. zod is
 * the oracle. On every case both must give the same verdict; on an accepted event the same
 * parsed value (deep equal, keys in the same order: what a handler sees and what JSON.stringify
 * writes); on a refused one the same issues, path and message, in the same order.
 */

const VALID_RUNS = 1_000;
const MUTATION_RUNS = 5_000;
const NON_EVENT_RUNS = 500;
const PROPERTY_TIMEOUT_MS = 120_000;

const documents = catalogDocuments({ version: '1.0.0' });
const schemaOf = (type: EventType): JsonObject => documents.jsonSchema.types[type];
const validEvent = fc.oneof(...EVENT_TYPES.map((type) => validValue(schemaOf(type), schemaOf(type))));

/** Deep equality that also requires the same key order and the same prototypes. */
function same(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const keysA = Reflect.ownKeys(a);
  const keysB = Reflect.ownKeys(b);
  if (keysA.length !== keysB.length || keysA.some((key, i) => key !== keysB[i])) return false;
  return keysA.every((key) => same((a as Record<PropertyKey, unknown>)[key], (b as Record<PropertyKey, unknown>)[key]));
}

interface Tally {
  accepted: number;
  refused: number;
}

/** zod's and the generated validator's results on `value` as `type`: the same, or a description of how they differ. */
function compare(type: EventType, value: unknown, tally: Tally): true | string {
  const zod = EVENT_SCHEMAS[type].safeParse(value);
  const fast = EVENT_VALIDATORS[type](value, undefined, []);
  const issues: Issue[] = [];
  const slow = EVENT_VALIDATORS[type](value, issues, []);
  if (zod.success) {
    tally.accepted++;
    if (fast === FAIL || slow === FAIL) return `zod accepts, the generated validator refuses: ${JSON.stringify(issues)}`;
    if (!same(fast, zod.data) || !same(slow, zod.data)) return `different parsed events: ${JSON.stringify(fast)} vs zod ${JSON.stringify(zod.data)}`;
    if (fast === value) return 'the parsed event is the input itself, not a copy as zod makes';
    return true;
  }
  tally.refused++;
  if (fast !== FAIL || slow !== FAIL) return `zod refuses (${JSON.stringify(zod.error.issues)}), the generated validator accepts`;
  const expected = zod.error.issues.map((issue) => ({ path: issue.path, message: issue.message }));
  const got = issues.map((issue) => ({ path: [...issue.path], message: issue.message }));
  if (same(got, expected)) return true;
  const at = got.findIndex((issue, i) => !same(issue, expected[i]));
  return `different issues from #${at === -1 ? expected.length : at}: ${JSON.stringify(got.slice(at))} vs zod ${JSON.stringify(expected.slice(at))}`;
}

function check(value: JsonValue, tally: Tally): boolean {
  // As the receiver sees it: parsed from the JSON text. The type the event names is tried, and the
  // next one in the catalog, so that the literal `type` and every object schema meet foreign events.
  const parsed = JSON.parse(JSON.stringify(value)) as unknown;
  const named = EVENT_TYPES.indexOf((parsed as { type?: EventType } | null)?.type as EventType);
  const next = (named + 1) % EVENT_TYPES.length;
  for (const type of named === -1 ? [EVENT_TYPES[next]!] : [EVENT_TYPES[named]!, EVENT_TYPES[next]!]) {
    const verdict = compare(type, parsed, tally);
    if (verdict !== true) throw new Error(`${type}: ${verdict}\ninput: ${JSON.stringify(parsed)}`);
  }
  return true;
}

describe('the generated event validators against zod', () => {
  it(`agree on ${VALID_RUNS} valid events of every type`, () => {
    const tally = { accepted: 0, refused: 0 };
    fc.assert(fc.property(validEvent, (event) => check(event, tally)), { numRuns: VALID_RUNS });
    console.log(`generated validators, valid events: ${tally.accepted} accepted by both, ${tally.refused} refused by both`);
    // Each event is valid for its own type (nearly always) and refused by the next.
    expect(tally.accepted).toBeGreaterThan(VALID_RUNS * 0.9);
  }, PROPERTY_TIMEOUT_MS);

  it(`agree on ${MUTATION_RUNS} mutations: wrong types, missing and extra fields, amounts out of range, bad dates, near misses`, () => {
    const tally = { accepted: 0, refused: 0 };
    const kinds = new Map<MutationKind, number>();
    const mutation = validEvent.chain((event) => mutationOf(event, EVENT_TYPES));
    fc.assert(
      fc.property(mutation, ({ kind, value }) => {
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        return check(value, tally);
      }),
      { numRuns: MUTATION_RUNS },
    );
    console.log(`generated validators, mutations: ${tally.accepted} accepted, ${tally.refused} refused;`, Object.fromEntries(kinds));
    expect(tally.refused).toBeGreaterThan(MUTATION_RUNS / 2);
    expect(tally.accepted).toBeGreaterThan(MUTATION_RUNS / 20);
  }, PROPERTY_TIMEOUT_MS);

  it('agree on inputs that are not events at all', () => {
    const tally = { accepted: 0, refused: 0 };
    fc.assert(fc.property(fc.jsonValue() as fc.Arbitrary<JsonValue>, (value) => check(value, tally)), { numRuns: NON_EVENT_RUNS });
    expect(tally.accepted).toBe(0);
  });

  it('agree on values JSON cannot carry: undefined, NaN, Infinity, class instances, symbol keys', () => {
    const tally = { accepted: 0, refused: 0 };
    const sample = JSON.parse(JSON.stringify(fc.sample(validValue(schemaOf('uva.submitted'), schemaOf('uva.submitted')), { numRuns: 1, seed: 1 })[0])) as Record<string, Record<string, Record<string, unknown>>>;
    const object = sample.data!.object!;
    const cases: unknown[] = [
      { ...sample, data: { ...sample.data, previous_attributes: undefined } },
      { ...sample, data: { ...sample.data, object: { ...object, amount: Number.NaN } } },
      { ...sample, data: { ...sample.data, object: { ...object, amount: Number.POSITIVE_INFINITY } } },
      { ...sample, data: { ...sample.data, object: { ...object, figures: new Map() } } },
      { ...sample, data: { ...sample.data, object: { ...object, figures: { ...(object.figures as object), [Symbol('x')]: 1 } } } },
      { ...sample, data: { ...sample.data, object: { ...object, created_at: new Date() } } },
      { ...sample, id: undefined },
      new Date(),
    ];
    for (const value of cases) {
      for (const type of EVENT_TYPES) {
        const verdict = compare(type, value, tally);
        expect(verdict, `${type}: ${String(value)}`).toBe(true);
      }
    }
    expect(tally.accepted).toBeGreaterThan(0);
  });
});
