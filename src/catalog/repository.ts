import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { catalogDocuments } from './documents.js';
import { CATALOG_FORMATS, catalogFiles, type CatalogFile } from './files.js';
import { catalogPageSection } from './page.js';
import { testVectors } from './test-vectors.js';

/*
 * For this repository's build (`npm run build:catalog`) and its staleness test: the files the
 * package ships under schemas/, and the generated part of docs/event-catalog.md.
 */

export const SCHEMAS_DIRECTORY = 'schemas';
export const CATALOG_PAGE = 'docs/event-catalog.md';
export const PAGE_START = '<!-- generated from the OpenAPI document by npm run build:catalog: do not edit -->';
/** The signature test vectors, beside the catalog. */
export const TEST_VECTORS_FILE = 'test-vectors.json';
export const PAGE_END = '<!-- end of the generated part -->';

/** Where each format's files go under schemas/: JSON Schema in a directory of its own, beside its $ids. */
const DIRECTORIES = { openapi: '', asyncapi: '', 'json-schema': 'json-schema' } as const;

/**
 * Every file of schemas/, with its path from the repository's root. They are written on one line
 * each: indented, the catalog would be 880 kB of the package's 2.5 MB budget (docs/development.md,
 * "The package"); on one line it is 510 kB. `acct-webhook catalog` prints the same documents indented.
 */
export function shippedCatalogFiles(version: string): CatalogFile[] {
  const documents = catalogDocuments({ version });
  const catalog = CATALOG_FORMATS.flatMap((format) =>
    catalogFiles(documents, format, { compact: true }).map((file) => ({ path: join(SCHEMAS_DIRECTORY, DIRECTORIES[format], file.path), content: file.content })),
  );
  // One case a line: readable in a diff, and a tenth of the indented size.
  const vectors = testVectors();
  const lines = vectors.cases.map((testCase) => `    ${JSON.stringify(testCase)}`).join(',\n');
  const { cases: _cases, ...head } = vectors;
  const content = `${JSON.stringify(head, null, 2).replace(/\n}$/, ',\n  "cases": [\n')}${lines}\n  ]\n}\n`;
  return [...catalog, { path: join(SCHEMAS_DIRECTORY, TEST_VECTORS_FILE), content }];
}

/** The generated part of the page, markers included. */
export function catalogPageBlock(version: string): string {
  return `${PAGE_START}\n\n${catalogPageSection(catalogDocuments({ version }).openapi)}\n\n${PAGE_END}`;
}

/** `page` with its generated part replaced by `block`. */
export function withPageBlock(page: string, block: string): string {
  const start = page.indexOf(PAGE_START);
  const end = page.indexOf(PAGE_END);
  if (start === -1 || end < start) throw new Error(`${CATALOG_PAGE} has no generated part (${PAGE_START} … ${PAGE_END})`);
  return `${page.slice(0, start)}${block}${page.slice(end + PAGE_END.length)}`;
}

/** Rewrites schemas/ (files of types that no longer exist go too) and the page's generated part. */
export function writeRepositoryCatalog(root = process.cwd()): void {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  rmSync(join(root, SCHEMAS_DIRECTORY), { recursive: true, force: true });
  for (const file of shippedCatalogFiles(version)) {
    mkdirSync(dirname(join(root, file.path)), { recursive: true });
    writeFileSync(join(root, file.path), file.content);
  }
  const page = join(root, CATALOG_PAGE);
  writeFileSync(page, withPageBlock(readFileSync(page, 'utf8'), catalogPageBlock(version)));
  console.log(`catalog: ${SCHEMAS_DIRECTORY}/ and ${CATALOG_PAGE} written for version ${version}`);
}
