import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { allCommands, commandPath } from '../../src/cli/command-tree.js';
import { Output } from '../../src/cli/output.js';
import { createProgram } from '../../src/cli/program.js';
import { StopRequests } from '../../src/cli/stop-requests.js';
import { EVENT_TYPES } from '../../src/events/catalog.js';
import { expectOneLineError, runCommand, TEST_VERSION } from './helpers.js';

/** Every command a user can call, as the words after `acct-webhook`, from the command tree itself. */
function commandTree(): Command[] {
  const io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: {}, version: TEST_VERSION, stopRequests: new StopRequests() };
  const program = createProgram({ io, output: new Output(io), help: {}, userAgent: 'test', setExitCode: () => undefined });
  return allCommands(program).slice(1);
}
const COMMANDS = commandTree().map((command) => commandPath(command).split(' ').slice(1));

describe('acct-webhook --version and --help', () => {
  it('prints the version it is given', async () => {
    expect(await runCommand(['--version'])).toEqual({ exitCode: 0, stdout: `${TEST_VERSION}\n`, stderr: '' });
  });

  it('lists every command, the exit codes and examples', async () => {
    const run = await runCommand(['--help']);
    expect(run.exitCode).toBe(0);
    for (const command of ['demo', 'sign', 'verify', 'trigger', 'listen', 'replay', 'dispatcher', 'catalog']) expect(run.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    expect(run.stdout).toMatch(/Exit codes:\n\s+0 +ok\n\s+1 .*\n\s+2 +usage error/);
    expect(run.stdout).toContain('Examples:');
  });

  it('knows the thirty-six commands of the tree (catch-up, conformance and dispatcher webhooks replay the newest)', () => {
    expect(COMMANDS).toHaveLength(36);
    expect(COMMANDS).toContainEqual(['conformance']);
    expect(COMMANDS).toContainEqual(['catch-up']);
    expect(COMMANDS).toContainEqual(['dispatcher', 'webhooks', 'replay']);
  });

  it.each(COMMANDS.map((words) => [words.join(' '), words] as const))('%s --help: usage and examples', async (_name, words) => {
    const run = await runCommand([...words, '--help']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain(`Usage: acct-webhook ${words.join(' ')}`);
    expect(run.stdout).toMatch(/Examples:\n {2}# .+\n {2}\$ acct-webhook /);
  });

  it.each(COMMANDS.map((words) => [words.join(' '), words] as const))('%s --help: each option shows its default once', async (_name, words) => {
    const run = await runCommand([...words, '--help']);
    const options = run.stdout.split(/^Options:\n/m)[1]?.split(/\n\n/)[0] ?? '';
    // One option per entry: a line starting with "  -" and its wrapped continuation lines.
    const entries = options.split(/\n(?= {2}-)/);
    for (const entry of entries) expect(entry.match(/\(default:/g)?.length ?? 0, entry).toBeLessThanOrEqual(1);
  });

  it.each(commandTree().map((command) => [commandPath(command), command] as const))('%s: every option with a default says it in its help', (_name, command) => {
    for (const option of command.options) {
      if (option.defaultValue !== undefined) expect(option.description, option.flags).toMatch(/\(default: /);
    }
  });

  it.each([['trigger'], ['dispatcher', 'emit']])('names all event types of the catalog in the help of %s', async (...words) => {
    const run = await runCommand([...words, '--help']);
    for (const type of EVENT_TYPES) expect(run.stdout).toContain(` ${type}`);
  });
});

describe('acct-webhook with a command line it cannot use', () => {
  it('refuses an unknown command with a usage error', async () => {
    expectOneLineError(await runCommand(['sgin']), 'INVALID_ARGUMENTS', 2);
  });

  it('refuses an unknown option with a usage error that points to the help', async () => {
    const run = await runCommand(['sign', '--secrte', 'x']);
    expectOneLineError(run, 'INVALID_ARGUMENTS', 2);
    expect(run.stderr).toContain('acct-webhook sign --help');
  });

  it('refuses a missing required option', async () => {
    expectOneLineError(await runCommand(['verify', '--secret', 'whsec_x', '--timestamp', '1']), 'INVALID_ARGUMENTS', 2);
  });

  it('prints the help on stderr and exits 2 when no command is given', async () => {
    const run = await runCommand([]);
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Usage: acct-webhook');
  });

  it.each([
    ['dispatcher deliveries list', ['dispatcher', 'deliveries', 'list', '--limit', '0']],
    ['dispatcher deliveries list', ['dispatcher', '--db', 'x.db', 'deliveries', 'list', '--since', 'yesterday']],
    ['dispatcher deliveries export', ['dispatcher', 'deliveries', 'export', '--until', 'soon']],
    ['dispatcher webhooks add', ['dispatcher', 'webhooks', 'add', '--url', 'https://example.invalid/x', '--status', 'paused']],
    ['dispatcher run', ['dispatcher', 'run', '--concurrency', 'many']],
    ['replay', ['replay', 'log.jsonl', '--rate', '0']],
    ['trigger', ['trigger', 'invoice.paid', '--url', 'http://127.0.0.1:9/webhooks', '--count', '0']],
    ['listen', ['listen', '--port', '70000']],
    ['demo', ['demo', '--time-scale', '0']],
  ])('names the command in a bad option value\'s error: %s', async (command, argv) => {
    const run = await runCommand(argv);
    expectOneLineError(run, 'INVALID_OPTION', 2);
    expect(run.stderr.startsWith(`acct-webhook ${command}: `), run.stderr).toBe(true);
  });

  it('adds the stack trace to the error line only with --verbose', async () => {
    const quiet = await runCommand(['sign', '--secret', 'whsec_x', '--file', '/nonexistent/body.json']);
    expectOneLineError(quiet, 'UNREADABLE_FILE', 2);
    const verbose = await runCommand(['sign', '--secret', 'whsec_x', '--file', '/nonexistent/body.json', '--verbose']);
    expect(verbose.exitCode).toBe(2);
    expect(verbose.stderr.split('\n')[0]).toBe(quiet.stderr.trimEnd());
    expect(verbose.stderr).toMatch(/^\s+at /m);
  });
});
