import { describe, expect, it } from 'vitest';
import { codeBlocks, isCompiled, matchesShown, shownCommands } from './code-blocks.js';

const page = [
  '# A page',
  '',
  '```ts',
  "const a = 1;",
  '```',
  '',
  '<!-- example: partial -->',
  '```ts',
  'hooks.on(…);',
  '```',
  '<!-- prelude',
  "import { Webhooks } from 'acct-webhook';",
  'declare const hooks: Webhooks;',
  '-->',
  '```js',
  'hooks.onAny(() => 1);',
  '```',
  '',
  '<!-- example: run -->',
  '```sh',
  '# a comment',
  '$ acct-webhook sign --timestamp 1',
  'x-svc-timestamp: 1',
  'x-svc-signature: …',
  '$ true',
  '```',
  'A paragraph breaks what came before it.',
  '```ts',
  'const b = 2;',
  '```',
].join('\n');

describe('reading the code blocks of a page', () => {
  const blocks = codeBlocks('page.md', page);

  it('finds every fenced block with its line and language', () => {
    expect(blocks.map((block) => [block.line, block.language])).toEqual([
      [3, 'ts'],
      [8, 'ts'],
      [15, 'js'],
      [20, 'sh'],
      [28, 'ts'],
    ]);
    expect(blocks.filter(isCompiled).map((block) => block.line)).toEqual([3, 8, 15, 28]);
  });

  it('reads the markers and the hidden prelude of the block they stand before, and only that one', () => {
    expect(blocks.map((block) => [block.partial, block.run])).toEqual([
      [false, false],
      [true, false],
      [false, false],
      [false, true],
      [false, false],
    ]);
    expect(blocks[2]!.prelude).toBe("import { Webhooks } from 'acct-webhook';\ndeclare const hooks: Webhooks;\n");
    expect(blocks[4]!.prelude).toBe('');
  });

  it('splits a shell block into commands and the output shown under each', () => {
    expect(shownCommands(blocks[3]!)).toEqual([
      { command: 'acct-webhook sign --timestamp 1', expected: ['x-svc-timestamp: 1', 'x-svc-signature: …'], line: 22 },
      { command: 'true', expected: [], line: 25 },
    ]);
  });
});

describe('comparing output with what a page shows', () => {
  it.each([
    ['the same lines', 'a\nb\n', ['a', 'b'], true],
    ['… standing for any text', 'x-svc-signature: 5f2b9e\n', ['x-svc-signature: …'], true],
    ['… across lines', 'first\nmiddle\nlast', ['first…', 'last'], true],
    ['a line that differs', 'a\nc', ['a', 'b'], false],
    ['more output than shown', 'a\nb\nextra', ['a', 'b'], false],
    ['regular-expression characters taken literally', 'price (EUR) 1.50', ['price (EUR) 1.50'], true],
    ['a dot that is not a wildcard', 'price 1x50', ['price 1.50'], false],
  ])('%s', (_name, actual, expected, matches) => {
    expect(matchesShown(actual, expected)).toBe(matches);
  });
});
