import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * The public surface, as a reviewer of a 1.0 release reads it: every entry point exports what
 * docs/api.md lists — no more, no less — and every export carries its JSDoc.
 */

const ENTRIES = {
  'acct-webhook': 'src/index.ts',
  'acct-webhook/testing': 'src/testing/index.ts',
  'acct-webhook/dispatcher': 'src/dispatcher.ts',
  'acct-webhook/sqlite': 'src/stores/sqlite/index.ts',
  'acct-webhook/postgres': 'src/stores/postgres/index.ts',
  'acct-webhook/dashboard': 'src/dashboard/index.ts',
  'acct-webhook/sandbox': 'src/sandbox/index.ts',
  'acct-webhook/catalog': 'src/catalog/index.ts',
  'acct-webhook/client': 'src/client/index.ts',
  'acct-webhook/web': 'src/web.ts',
  'acct-webhook/fastify': 'src/adapters/fastify/index.ts',
  'acct-webhook/hono': 'src/adapters/hono/index.ts',
  'acct-webhook/koa': 'src/adapters/koa/index.ts',
  'acct-webhook/nestjs': 'src/adapters/nestjs/index.ts',
} as const;
/** The main entry stays small: the values a receiver's author calls. */
const MAX_MAIN_VALUES = 30;

interface Export {
  name: string;
  kind: 'value' | 'type';
  documented: boolean;
}

function exportsOf(entry: string): Export[] {
  const program = ts.createProgram([entry], {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    types: ['node'],
  });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  return checker.getExportsOfModule(module).map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const documented = ts.displayPartsToString(target.getDocumentationComment(checker)).trim().length > 0;
    return { name: symbol.name, kind: target.flags & ts.SymbolFlags.Value ? 'value' : 'type', documented };
  });
}

/** The names docs/api.md lists for an entry point, in its ```text block after `<!-- surface: entry -->`. */
function documentedSurface(entry: string): string[] {
  const doc = readFileSync('docs/api.md', 'utf8');
  const marker = `<!-- surface: ${entry} -->`;
  const start = doc.indexOf(marker);
  if (start === -1) throw new Error(`docs/api.md has no ${marker}`);
  const block = /```text\n([\s\S]*?)```/.exec(doc.slice(start))?.[1] ?? '';
  return block.split(/[\s,]+/).filter((name) => name !== '' && !name.endsWith(':'));
}

describe.each(Object.entries(ENTRIES))('the surface of %s', (entry, file) => {
  const exported = exportsOf(file);

  it('is exactly what docs/api.md lists', () => {
    expect(exported.map((e) => e.name).sort()).toEqual(documentedSurface(entry).sort());
  });

  it('documents every export with JSDoc', () => {
    expect(exported.filter((e) => !e.documented).map((e) => e.name)).toEqual([]);
  });
});

it(`keeps the main entry at ${MAX_MAIN_VALUES} values or fewer`, () => {
  const values = exportsOf(ENTRIES['acct-webhook']).filter((e) => e.kind === 'value');
  expect(values.length).toBeLessThanOrEqual(MAX_MAIN_VALUES);
});
