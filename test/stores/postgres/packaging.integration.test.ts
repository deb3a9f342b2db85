import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dist, exportOf, externalImports, root } from '../../helpers/dist.js';

describe('acct-webhook/postgres as a package', () => {
  it('is its own entry, with pg an optional peer dependency', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    expect(exportOf('./postgres')).toEqual({
      import: { types: './dist/postgres.d.ts', default: './dist/postgres.js' },
      require: { types: './dist/postgres.d.cts', default: './dist/postgres.cjs' },
    });
    expect(manifest.peerDependencies).toMatchObject({ pg: expect.any(String) });
    expect(manifest.peerDependenciesMeta).toMatchObject({ pg: { optional: true } });
    expect(manifest.dependencies).not.toHaveProperty('pg');
    for (const file of ['postgres.js', 'postgres.cjs', 'postgres.d.ts', 'postgres.d.cts']) expect(existsSync(join(dist, file)), file).toBe(true);
  });

  // Loaded without it, the postgres entry included; test/kernel/optional-package.integration.test.ts
  // shows what a store made from a URL says when pg is not installed.
  it('imports pg from no entry point: it is required when a store is made from a URL', () => {
    for (const name of ['index', 'dispatcher', 'sqlite', 'testing', 'postgres', 'dashboard', 'sandbox']) {
      for (const entry of [`${name}.js`, `${name}.cjs`]) expect([...externalImports(entry)], entry).not.toContain('pg');
    }
  });

  it('publishes declarations that do not need @types/pg', () => {
    expect(readFileSync(join(dist, 'postgres.d.ts'), 'utf8')).not.toMatch(/from ['"]pg['"]/);
  });
});
