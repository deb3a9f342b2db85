import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const dist = join(root, 'dist');

/** Bare module names `file` loads, following the relative imports between built chunks. */
function externalImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const external = new Set<string>();
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\(\s*)["']([^"']+)["']/g;
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(pattern)) {
      if (specifier!.startsWith('.')) visit(join(dirname(file), specifier!));
      else external.add(specifier!);
    }
  };
  visit(join(dist, entry));
  return external;
}

describe('acct-webhook/postgres as a package', () => {
  it('is its own entry, with pg an optional peer dependency', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    expect(manifest.exports!['./postgres']).toEqual({
      import: { types: './dist/postgres.d.ts', default: './dist/postgres.js' },
      require: { types: './dist/postgres.d.cts', default: './dist/postgres.cjs' },
    });
    expect(manifest.peerDependencies).toMatchObject({ pg: expect.any(String) });
    expect(manifest.peerDependenciesMeta).toMatchObject({ pg: { optional: true } });
    expect(manifest.dependencies).not.toHaveProperty('pg');
    for (const file of ['postgres.js', 'postgres.cjs', 'postgres.d.ts', 'postgres.d.cts']) expect(existsSync(join(dist, file)), file).toBe(true);
  });

  it('loads pg only through that entry: acct-webhook and acct-webhook/dispatcher work without it', () => {
    for (const entry of ['index.js', 'index.cjs', 'dispatcher.js', 'dispatcher.cjs', 'testing.js', 'testing.cjs']) {
      expect([...externalImports(entry)], entry).not.toContain('pg');
    }
    expect(externalImports('postgres.js')).toContain('pg');
    expect(externalImports('postgres.cjs')).toContain('pg');
  });

  it('publishes declarations that do not need @types/pg', () => {
    expect(readFileSync(join(dist, 'postgres.d.ts'), 'utf8')).not.toMatch(/from ['"]pg['"]/);
  });
});
