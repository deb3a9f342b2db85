import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { catalogDocuments } from '../../src/catalog/documents.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../src/catalog/json.js';
import { EVENT_SCHEMAS } from '../../src/events/schemas.js';
import { EVENT_TYPES, isEventType, parseEvent, WebhookValidationError } from '../../src/index.js';
import { mutationOf, validValue, type MutationKind } from './arbitraries.js';

/*
 * The JSON Schema the catalog publishes against the parser it is generated from. fast-check
 * makes valid events of every type (from the schemas) and mutations of them; parseEvent (zod)
 * and ajv (draft 2020-12, formats asserted by ajv-formats) compiling the published union must
 * agree, accept or reject, on every case. Where they cannot agree, the exception is named here
 * and said in the schemas' descriptions (VALIDATION_NOTES), and each one must actually occur.
 */

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;
const documents = catalogDocuments({ version: '1.0.0' });
const ajv = addFormats(new Ajv2020({ strict: true }));
const validateUnion = ajv.compile(documents.jsonSchema.event);
const validateType = Object.fromEntries(
  EVENT_TYPES.map((type) => [type, addFormats(new Ajv2020({ strict: true })).compile(documents.jsonSchema.types[type])]),
);

/** How many cases of each sort run: valid events, then mutations of valid events. */
const VALID_RUNS = 1_000;
const MUTATION_RUNS = 5_000;
const NON_EVENT_RUNS = 500;
/** Thousands of whole events through two validators: seconds, more on a busy machine. */
const PROPERTY_TIMEOUT_MS = 120_000;

interface Verdict {
  zod: boolean;
  ajv: boolean;
}

function judge(value: JsonValue): Verdict {
  const text = JSON.stringify(value);
  let zod = true;
  try {
    parseEvent(text);
  } catch (error) {
    if (!(error instanceof WebhookValidationError)) throw error;
    zod = false;
  }
  return { zod, ajv: validateUnion(JSON.parse(text)) };
}

/** A disagreement JSON Schema cannot avoid, and how to recognise it from the case alone. */
interface Exception {
  name: string;
  applies(value: JsonValue, verdict: Verdict): boolean;
}

const EXCEPTIONS: readonly Exception[] = [
  {
    name: "parseEvent refuses the keys __proto__ and constructor.prototype, which objects' unlisted fields accept",
    applies(value, verdict) {
      if (verdict.zod || !verdict.ajv || !isJsonObject(value) || !isEventType(value.type)) return false;
      // The event's schema itself accepts it: only the guard on the raw JSON text refused it.
      return EVENT_SCHEMAS[value.type].safeParse(value).success && /"(__proto__|constructor)":/.test(JSON.stringify(value));
    },
  },
];

interface Tally {
  cases: number;
  accepted: number;
  rejected: number;
  exceptions: Map<string, number>;
}

function newTally(): Tally {
  return { cases: 0, accepted: 0, rejected: 0, exceptions: new Map(EXCEPTIONS.map((exception) => [exception.name, 0])) };
}

/** Whether zod and ajv agree on `value`, or disagree as a named exception (counted). */
function agrees(value: JsonValue, tally: Tally): boolean {
  const verdict = judge(value);
  tally.cases++;
  if (verdict.zod) tally.accepted++;
  else tally.rejected++;
  if (isJsonObject(value) && isEventType(value.type) && validateType[value.type]!(value) !== verdict.ajv) return false;
  if (verdict.zod === verdict.ajv) return true;
  const exception = EXCEPTIONS.find((candidate) => candidate.applies(value, verdict));
  if (exception === undefined) return false;
  tally.exceptions.set(exception.name, tally.exceptions.get(exception.name)! + 1);
  return true;
}

const schemaOf = (type: (typeof EVENT_TYPES)[number]): JsonObject => documents.jsonSchema.types[type];
const validEvent = fc.oneof(...EVENT_TYPES.map((type) => validValue(schemaOf(type), schemaOf(type))));

describe('the published JSON Schema against parseEvent', () => {
  it(`agree on ${VALID_RUNS} valid events of every type`, () => {
    const tally = newTally();
    fc.assert(fc.property(validEvent, (event) => agrees(event, tally)), { numRuns: VALID_RUNS });
    console.log(`differential, valid events: ${tally.cases} cases, ${tally.accepted} accepted by both, ${tally.rejected} refused`, Object.fromEntries(tally.exceptions));
    // The generator makes events the parser accepts, nearly always (a pattern's generated text may still break a refinement).
    expect(tally.accepted).toBeGreaterThan(VALID_RUNS * 0.9);
  }, PROPERTY_TIMEOUT_MS);

  it(`agree on ${MUTATION_RUNS} mutations: wrong types, missing and extra fields, amounts out of range, bad dates, near misses`, () => {
    const tally = newTally();
    const kinds = new Map<MutationKind, number>();
    const mutation = validEvent.chain((event) => mutationOf(event, EVENT_TYPES));
    fc.assert(
      fc.property(mutation, ({ kind, value }) => {
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        return agrees(value, tally);
      }),
      { numRuns: MUTATION_RUNS },
    );
    console.log(
      `differential, mutations: ${tally.cases} cases, ${tally.accepted} accepted, ${tally.rejected} refused;`,
      Object.fromEntries(kinds),
      'named exceptions:',
      Object.fromEntries(tally.exceptions),
    );
    expect(tally.rejected).toBeGreaterThan(MUTATION_RUNS / 2);
    // Each named exception is real: the generator runs into it.
    for (const [name, count] of tally.exceptions) expect(count, name).toBeGreaterThan(0);
  }, PROPERTY_TIMEOUT_MS);

  it('agree on inputs that are not events at all', () => {
    const tally = newTally();
    fc.assert(fc.property(fc.jsonValue() as fc.Arbitrary<JsonValue>, (value) => agrees(value, tally)), { numRuns: NON_EVENT_RUNS });
    expect(tally.accepted).toBe(0);
  });
});
