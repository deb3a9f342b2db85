import { readFileSync } from 'node:fs';

/**
 * The fenced code blocks of a Markdown page, with what the page says about each in an HTML
 * comment just before it (invisible to readers):
 *
 * - `<!-- example: partial -->` — a fragment on purpose (an excerpt, a shape); not compiled, but
 *   counted and listed, so skipping stays visible.
 * - `<!-- example: run -->` on a `sh` block — its `$ …` lines are run and their output compared.
 * - `<!-- prelude … -->` — code the block needs but does not show (a `declare const`, an import);
 *   compiled in front of it.
 */
export interface CodeBlock {
  /** The page, relative to the repository. */
  file: string;
  /** The line of the opening fence (1-based). */
  line: number;
  language: string;
  code: string;
  partial: boolean;
  run: boolean;
  prelude: string;
}

const FENCE = /^```([\w-]*)\s*$/;
const MARKER = /^<!--\s*example:\s*(partial|run)\s*-->$/;
const PRELUDE_START = /^<!--\s*prelude\b(.*)$/;

/** Reads every fenced block of a page, in order. */
export function codeBlocks(file: string, text: string = readFileSync(file, 'utf8')): CodeBlock[] {
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  let pending = { partial: false, run: false, prelude: '' };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const marker = MARKER.exec(line.trim());
    if (marker) {
      if (marker[1] === 'partial') pending.partial = true;
      else pending.run = true;
      continue;
    }
    const prelude = PRELUDE_START.exec(line.trim());
    if (prelude) {
      const body: string[] = [];
      let rest = prelude[1] ?? '';
      while (!rest.includes('-->')) {
        body.push(rest);
        index++;
        rest = lines[index] ?? '-->';
      }
      body.push(rest.slice(0, rest.indexOf('-->')));
      pending.prelude += `${body.join('\n').trim()}\n`;
      continue;
    }
    const fence = FENCE.exec(line);
    if (!fence) {
      if (line.trim() !== '') pending = { partial: false, run: false, prelude: '' };
      continue;
    }
    const start = index + 1;
    const body: string[] = [];
    for (index++; index < lines.length && !/^```\s*$/.test(lines[index]!); index++) body.push(lines[index]!);
    blocks.push({ file, line: start, language: fence[1] ?? '', code: `${body.join('\n')}\n`, ...pending });
    pending = { partial: false, run: false, prelude: '' };
  }
  return blocks;
}

/** Blocks the compiler checks: TypeScript and JavaScript. */
export function isCompiled(block: CodeBlock): boolean {
  return ['ts', 'typescript', 'js', 'javascript', 'mjs'].includes(block.language);
}

/** One command of a `sh` block to run: `$ command`, then the lines it must print (`…` matches anything). */
export interface ShownCommand {
  command: string;
  expected: string[];
  /** The line of the `$` in the page. */
  line: number;
}

/** The `$ …` commands of a shell block and the output shown under each; `#` lines are comments. */
export function shownCommands(block: CodeBlock): ShownCommand[] {
  const commands: ShownCommand[] = [];
  block.code
    .trimEnd()
    .split('\n')
    .forEach((text, offset) => {
      if (text.startsWith('$ ')) commands.push({ command: text.slice(2), expected: [], line: block.line + 1 + offset });
      else if (!text.startsWith('#') && commands.length > 0) commands.at(-1)!.expected.push(text);
    });
  return commands;
}

/** Does `actual` match the shown lines, where `…` in a shown line stands for any text? */
export function matchesShown(actual: string, expected: readonly string[]): boolean {
  const pattern = expected
    .map((line) => line.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*?'))
    .join('\n');
  return new RegExp(`^${pattern}\\s*$`, 's').test(actual.trimEnd());
}
