import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { allCommands, commandPath } from '../../src/cli/command-tree.js';
import { Output } from '../../src/cli/output.js';
import { createProgram } from '../../src/cli/program.js';
import { StopRequests } from '../../src/cli/stop-requests.js';

/*
 * Every flag of `acct-webhook` is in docs/cli.md, in the section of its command: the flags are
 * read from commander's own command tree (every command and subcommand, every long and short
 * option), so a flag added to the code without a line in the docs fails here. A command's
 * section is the `## ` section whose heading names its first word (`## dispatcher` holds
 * `dispatcher deliveries export`); the options of `acct-webhook` itself belong to the page's
 * introduction, before the first `## ` heading.
 */

const DOC = 'docs/cli.md';

function program(): Command {
  const io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: {}, version: '0.0.0', stopRequests: new StopRequests() };
  return createProgram({ io, output: new Output(io), help: {}, userAgent: 'test', setExitCode: () => undefined });
}

interface Section {
  heading: string;
  text: string;
}

/** The page cut at its `## ` headings; the introduction has the heading ''. */
function sections(markdown: string): Section[] {
  return markdown.split(/^(?=## )/m).map((part) => {
    const heading = part.startsWith('## ') ? part.slice(3, part.indexOf('\n')).trim() : '';
    return { heading, text: part };
  });
}

/** The words of the command after `acct-webhook`: [] for the program itself. */
const wordsOf = (command: Command): string[] => commandPath(command).split(' ').slice(1);

function sectionOf(command: Command, all: readonly Section[]): Section | undefined {
  const [first] = wordsOf(command);
  if (first === undefined) return all.find((section) => section.heading === '');
  return all.find((section) => section.heading.split(/[^\w-]+/).includes(first));
}

/** `--db` or `-p` as a flag of its own: not the start of `--db-file`, not inside `--pg`. */
function mentions(text: string, flag: string): boolean {
  const escaped = flag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`).test(text);
}

const page = sections(readFileSync(DOC, 'utf8'));
const commands = allCommands(program());
const flags = commands.flatMap((command) =>
  command.options.flatMap((option) =>
    [option.long, option.short].filter((flag): flag is string => flag !== undefined).map((flag) => [commandPath(command), flag, command] as const),
  ),
);

describe(`every flag commander knows is in ${DOC}, in its command's section`, () => {
  it('finds the whole tree: every command and subcommand, and well over a hundred flags', () => {
    expect(commands.length).toBeGreaterThanOrEqual(31);
    expect(flags.length).toBeGreaterThan(100);
  });

  it.each(commands.map((command) => [commandPath(command), command] as const))('%s has a section', (_path, command) => {
    expect(sectionOf(command, page), `a "## " heading naming ${wordsOf(command)[0] ?? 'the introduction'}`).toBeDefined();
  });

  it.each(flags)('%s %s', (_path, flag, command) => {
    const section = sectionOf(command, page);
    expect(section && mentions(section.text, flag), `${flag} in the section "${section?.heading ?? '?'}"`).toBe(true);
  });
});
