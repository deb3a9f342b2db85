import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dist, exportOf, externalImports, root } from '../helpers/dist.js';

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

  it('loads pg only through that entry: acct-webhook and acct-webhook/dispatcher work without it', () => {
    for (const entry of ['index.js', 'index.cjs', 'dispatcher.js', 'dispatcher.cjs', 'sqlite.js', 'sqlite.cjs', 'testing.js', 'testing.cjs']) {
      expect([...externalImports(entry)], entry).not.toContain('pg');
    }
    expect(externalImports('postgres.js')).toContain('pg');
    expect(externalImports('postgres.cjs')).toContain('pg');
  });

  it('publishes declarations that do not need @types/pg', () => {
    expect(readFileSync(join(dist, 'postgres.d.ts'), 'utf8')).not.toMatch(/from ['"]pg['"]/);
  });
});
