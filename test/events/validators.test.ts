import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { eventValidatorsSource, VALIDATORS_FILE } from '../../src/events/validator-source.js';

/*
 * src/events/validators.generated.ts is what the generator writes from the zod schemas as they are
 * now: a change to a schema without `npm run build` (which rewrites it) fails here.
 */

describe('the generated event validators', () => {
  it(`${VALIDATORS_FILE} is what the generator writes from the zod schemas`, () => {
    const stale = `${VALIDATORS_FILE} is stale: run \`npm run build\` (it rewrites the file) and commit the result`;
    expect(readFileSync(VALIDATORS_FILE, 'utf8') === eventValidatorsSource(), stale).toBe(true);
  });
});
