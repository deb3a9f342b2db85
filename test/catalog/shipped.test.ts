import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOG_PAGE, catalogPageBlock, PAGE_END, PAGE_START, SCHEMAS_DIRECTORY, shippedCatalogFiles } from '../../src/catalog/repository.js';

/*
 * schemas/ (shipped in the package, linked from the docs) and the generated part of
 * docs/event-catalog.md are what `npm run build:catalog` writes from the code as it is now. A
 * change to an event's schema, description or sample without the build fails here: run
 * `npm run build` and commit what it rewrote. `npm ci` (prepare) does not regenerate them, so CI
 * checks the committed files.
 */

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string; files: string[] };
const expected = shippedCatalogFiles(manifest.version);
const STALE = 'stale: run `npm run build` (it rewrites schemas/ and docs/event-catalog.md) and commit the result';

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative('.', join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

describe('the catalog files in the repository', () => {
  it('schemas/ holds exactly the files the build writes, and the package ships it', () => {
    expect(filesUnder(SCHEMAS_DIRECTORY), STALE).toEqual(expected.map((file) => file.path).sort());
    expect(manifest.files).toContain(SCHEMAS_DIRECTORY);
  });

  it.each(expected.map((file) => [file.path, file.content] as const))('%s is what the build writes', (path, content) => {
    expect(readFileSync(path, 'utf8') === content, `${path} is ${STALE}`).toBe(true);
  });

  it(`${CATALOG_PAGE} shows the OpenAPI document as the build renders it`, () => {
    const page = readFileSync(CATALOG_PAGE, 'utf8');
    const start = page.indexOf(PAGE_START);
    const end = page.indexOf(PAGE_END);
    expect(start, `${CATALOG_PAGE} has no generated part`).toBeGreaterThan(-1);
    expect(page.slice(start, end + PAGE_END.length), `${CATALOG_PAGE} is ${STALE}`).toBe(catalogPageBlock(manifest.version));
  });
});
