import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { codeBlocks, isCompiled, matchesShown, shownCommands, type CodeBlock } from './code-blocks.js';

/*
 * Every TypeScript and JavaScript example in README.md and docs/ is compiled against the built
 * package, as a user's project would import it (`acct-webhook`, `acct-webhook/dispatcher` …, with
 * the strictest settings the project itself uses). A block marked partial is skipped — and
 * counted, and listed. Shell blocks marked `<!-- example: run -->` are run with the built CLI and
 * their shown output compared.
 */

const root = resolve(import.meta.dirname, '..', '..');
const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((file) => file.endsWith('.md')).map((file) => `docs/${file}`)];
const blocks = pages.flatMap((page) => codeBlocks(page, undefined)).map((block) => ({ ...block, file: block.file }));
const compiled = blocks.filter((block) => isCompiled(block) && !block.partial);
const partial = blocks.filter((block) => isCompiled(block) && block.partial);
const runnable = blocks.filter((block) => block.language === 'sh' && block.run);

// Inside the repository, so that `acct-webhook` resolves to this package (by its own name, through
// its exports map and dist/*.d.ts) and every other import to its node_modules.
const workdir = join(root, '.doc-examples');
const name = (block: CodeBlock) => `${block.file}:${block.line}`;

function sourceOf(block: CodeBlock): string {
  const code = `${block.prelude}${block.code}`;
  return /^\s*(import|export)\s/m.test(code) ? code : `${code}\nexport {};\n`;
}

function compile(): Map<string, string[]> {
  rmSync(workdir, { recursive: true, force: true });
  mkdirSync(workdir, { recursive: true });
  const files = compiled.map((block) => {
    const extension = ['js', 'javascript', 'mjs'].includes(block.language) ? 'mjs' : 'mts';
    const file = join(workdir, `${name(block).replace(/[/:.]/g, '_')}.${extension}`);
    writeFileSync(file, sourceOf(block));
    return { block, file };
  });
  const program = ts.createProgram(
    files.map(({ file }) => file),
    {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      allowJs: true,
      checkJs: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      // As a NestJS project's tsconfig has them (docs/frameworks.md): Nest's decorators are the
      // legacy ones, and its injection reads constructor types from the emitted metadata.
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
    },
  );
  const errors = new Map<string, string[]>();
  for (const { block, file } of files) {
    const diagnostics = ts.getPreEmitDiagnostics(program, program.getSourceFile(file));
    const preludeLines = block.prelude === '' ? 0 : block.prelude.split('\n').length - 1;
    errors.set(
      name(block),
      diagnostics.map((diagnostic) => {
        const at = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line : 0;
        return `${block.file}:${block.line + at - preludeLines + 1}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
      }),
    );
  }
  return errors;
}

describe('the code examples of README.md and docs/', () => {
  const errors = compile();
  afterAll(() => rmSync(workdir, { recursive: true, force: true }));

  it('counts what it compiles and what it skips', () => {
    console.log(
      `docs examples: ${compiled.length} compiled, ${partial.length} partial blocks skipped` +
        (partial.length > 0 ? ` (${partial.map(name).join(', ')})` : '') +
        `, ${runnable.length} shell blocks run`,
    );
    expect(compiled.length).toBeGreaterThan(0);
  });

  it.each(compiled.map((block) => [name(block), block] as const))('%s compiles against the built package', (label) => {
    expect(errors.get(label)).toEqual([]);
  });
});

describe('the CLI examples of README.md and docs/ that show their output', () => {
  it.each(runnable.map((block) => [name(block), block] as const))('%s prints what it shows', (_label, block) => {
    const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-doc-cli-'));
    // `acct-webhook` on the PATH, as an installed package's bin would be.
    const bin = join(dir, '.bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'acct-webhook'), `#!/bin/sh\nexec "${process.execPath}" "${join(root, 'bin', 'acct-webhook.js')}" "$@"\n`, { mode: 0o755 });
    try {
      for (const { command, expected, line } of shownCommands(block)) {
        const run = spawnSync('sh', ['-c', `${command} 2>&1`], {
          cwd: dir,
          encoding: 'utf8',
          env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, NO_COLOR: '1', FORCE_COLOR: '0' },
        });
        const where = `${block.file}:${line}: $ ${command}\n${run.stdout}`;
        // A command whose output is shown is judged by it (a refusal may be the point); one without must succeed.
        if (expected.length > 0) expect(matchesShown(run.stdout, expected), where).toBe(true);
        else expect(run.status, where).toBe(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
