import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dist, exportOf, externalImports } from '../../helpers/dist.js';

const ENTRIES = ['index', 'dispatcher', 'sqlite', 'postgres', 'testing'];

describe('acct-webhook/sqlite as a package', () => {
  it('is its own entry, shaped like the others', () => {
    expect(exportOf('./sqlite')).toEqual({
      import: { types: './dist/sqlite.d.ts', default: './dist/sqlite.js' },
      require: { types: './dist/sqlite.d.cts', default: './dist/sqlite.cjs' },
    });
    for (const file of ['sqlite.js', 'sqlite.cjs', 'sqlite.d.ts', 'sqlite.d.cts']) expect(existsSync(join(dist, file)), file).toBe(true);
  });

  it('no entry point imports better-sqlite3: it is required when a SQLite store is created', () => {
    for (const entry of ENTRIES.flatMap((name) => [`${name}.js`, `${name}.cjs`])) {
      expect([...externalImports(entry)], entry).not.toContain('better-sqlite3');
    }
  });

  it('publishes declarations that do not need @types/better-sqlite3', () => {
    for (const entry of ENTRIES.flatMap((name) => [`${name}.d.ts`, `${name}.d.cts`])) {
      const declarations = readFileSync(join(dist, entry), 'utf8');
      expect(declarations, entry).not.toMatch(/from ['"]better-sqlite3['"]/);
      // Nor through the chunks they import.
      for (const [, chunk] of declarations.matchAll(/from ['"](\.\/[^'"]+)['"]/g)) {
        const file = chunk!.replace(/\.js$/, '.d.ts').replace(/\.cjs$/, '.d.cts');
        expect(readFileSync(join(dist, file), 'utf8'), file).not.toMatch(/from ['"]better-sqlite3['"]/);
      }
    }
  });
});
