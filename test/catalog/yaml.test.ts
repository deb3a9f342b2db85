import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { catalogDocuments } from '../../src/catalog/documents.js';
import type { JsonValue } from '../../src/catalog/json.js';
import { toYaml } from '../../src/catalog/yaml.js';

/** JSON's view of a value: what survives JSON.stringify and JSON.parse (-0 becomes 0). */
const asJson = (value: JsonValue): unknown => JSON.parse(JSON.stringify(value));

// Strings of any characters (outside the Basic Multilingual Plane too), and the ones YAML reads as something else when plain.
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('yes', 'No', 'ON', 'off', 'y', 'null', 'Null', '~', 'true', 'False', '1_000', '0x1F', '0o17', '1e3', '.inf', '-.nan', '12:30', '2026-11-12', '#x', '- a', 'a: b', 'a #b', '@a', '`a', '!a', '&a', '*a', '|', '>', '"', "'", '{}', '[]', ',', '?', '%', ' a', 'a ', '', '\u0085', '\u2028', '\ufeff', '\u007f', '$ref', '2XX'),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(text, tie('value'), { maxKeys: 4 }),
})).value as fc.Arbitrary<JsonValue>;

describe('the YAML the CLI writes (--yaml)', () => {
  it('reads back as the same data in YAML 1.2 and in YAML 1.1, for any JSON value', () => {
    fc.assert(
      fc.property(json, (value) => {
        const yaml = toYaml(value);
        expect(parse(yaml, { version: '1.2', uniqueKeys: true })).toEqual(asJson(value));
        expect(parse(yaml, { version: '1.1', uniqueKeys: true })).toEqual(asJson(value));
      }),
      { numRuns: 1_000 },
    );
  });

  it('reads back as the catalog documents themselves', () => {
    const { openapi, asyncapi, jsonSchema } = catalogDocuments({ version: '1.0.0' });
    for (const document of [openapi, asyncapi, jsonSchema.event]) expect(parse(toYaml(document), { version: '1.1' })).toEqual(asJson(document));
  });

  it('writes keys and words plainly only where no YAML reader can take them for anything else', () => {
    expect(toYaml({ openapi: '3.1.1', $ref: '#/components/schemas/Amount', on: 'yes', '2XX': { description: 'ok' }, list: [], map: {} })).toBe(
      ['openapi: "3.1.1"', '$ref: "#/components/schemas/Amount"', '"on": "yes"', '"2XX":', '  description: ok', 'list: []', 'map: {}', ''].join('\n'),
    );
    expect(toYaml([{ a: 1, b: [true, null] }, [], 'x'])).toBe(['- a: 1', '  b:', '    - true', '    - null', '- []', '- x', ''].join('\n'));
  });
});
