import { resolve } from 'node:path';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, it } from 'vitest';

/*
 * The layers of src/ (.dependency-cruiser.mjs, docs/architecture.md): which folder may import
 * which, no cycle of any kind. Cruised in this process, from the sources.
 */

const ROOT = resolve(import.meta.dirname, '..');

async function violationsIn(baseDir: string): Promise<string[]> {
  const options = await extractDepcruiseOptions(resolve(ROOT, '.dependency-cruiser.mjs'));
  const tsConfig = extractTSConfig(resolve(ROOT, 'tsconfig.json'));
  const result = await cruise(['src'], { ...options, baseDir }, {}, { tsConfig });
  const output = result.output as ICruiseResult;
  return output.summary.violations.map(describeViolation);
}

function describeViolation(violation: IViolation): string {
  const cycle = violation.cycle?.map((step) => step.name).join(' → ');
  return `${violation.rule.name}: ${violation.from} → ${violation.to}${cycle === undefined ? '' : ` (cycle ${cycle})`}`;
}

describe('the layers', () => {
  it('src/ imports only what its layer may, with no cycle (type-only imports included)', async () => {
    expect(await violationsIn(ROOT)).toEqual([]);
  }, 60_000);

  it('a core module importing a backend, and two ports naming each other, fail the rule', async () => {
    const violations = await violationsIn(resolve(ROOT, 'test/fixtures/layers'));
    expect(violations).toContain('not-in-allowed: src/dispatcher/picks-a-backend.ts → src/stores/sqlite/store.ts');
    expect(violations).toEqual(expect.arrayContaining([expect.stringMatching(/^no-cycles: src\/ports\/inbox\.ts → src\/ports\/store\.ts/)]));
  }, 60_000);
});
