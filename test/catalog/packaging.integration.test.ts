import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dist, exportOf, reachableFiles, root } from '../helpers/dist.js';

/** Code only the catalog generator has: zod's JSON Schema conversion, and where the schemas are served. */
const GENERATOR = /toJSONSchema|cdn\.jsdelivr\.net/;
/**
 * The dashboard's event-types page (the portal's catalog) converts one type's object schema with
 * zod's own `z.toJSONSchema` when it is first shown: zod is loaded anyway, so that costs no code of
 * the package; the catalog's documents and their generator stay out of it.
 */
const DOCUMENTS = /cdn\.jsdelivr\.net|asyncapi/;
const patternOf = (entry: string): RegExp => (entry.startsWith('dashboard.') ? DOCUMENTS : GENERATOR);
const LIBRARY_ENTRIES = ['index', 'testing', 'dispatcher', 'sqlite', 'postgres', 'dashboard', 'sandbox'];
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

describe('acct-webhook/catalog as a package', () => {
  it('is its own entry, shaped like the others', () => {
    expect(exportOf('./catalog')).toEqual({
      import: { types: './dist/catalog.d.ts', default: './dist/catalog.js' },
      require: { types: './dist/catalog.d.cts', default: './dist/catalog.cjs' },
    });
    for (const file of ['catalog.js', 'catalog.cjs', 'catalog.d.ts', 'catalog.d.cts']) expect(existsSync(join(dist, file)), file).toBe(true);
  });

  it('is never loaded by the library: no other entry reaches the generator', () => {
    for (const entry of LIBRARY_ENTRIES.flatMap((name) => [`${name}.js`, `${name}.cjs`])) {
      const generator = reachableFiles(entry).filter((file) => patternOf(entry).test(readFileSync(file, 'utf8')));
      expect(generator, entry).toEqual([]);
    }
    // The check finds the generator where it is.
    expect(reachableFiles('catalog.js').some((file) => GENERATOR.test(readFileSync(file, 'utf8')))).toBe(true);
    expect(reachableFiles('catalog.js').some((file) => DOCUMENTS.test(readFileSync(file, 'utf8')))).toBe(true);
  });

  it("prints, from the built CLI, the package's version and the document shipped as schemas/openapi.json", () => {
    const stdout = execFileSync(process.execPath, [join(root, 'bin', 'acct-webhook.js'), 'catalog', '--format', 'openapi'], { encoding: 'utf8' });
    expect((JSON.parse(stdout) as { info: { version: string } }).info.version).toBe(version);
    expect(JSON.parse(stdout)).toEqual(JSON.parse(readFileSync(join(root, 'schemas', 'openapi.json'), 'utf8')));
  });
});
