import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/events/catalog.js';
import { expectOneLineError, REPO_VERSION, runCli } from './helpers.js';

/** Every command a user can call, as the words after `acct-webhook`. */
const COMMANDS = [
  ['demo'],
  ['sign'],
  ['verify'],
  ['trigger'],
  ['listen'],
  ['replay'],
  ['dispatcher'],
  ['dispatcher', 'webhooks'],
  ['dispatcher', 'webhooks', 'add'],
  ['dispatcher', 'webhooks', 'list'],
  ['dispatcher', 'webhooks', 'update'],
  ['dispatcher', 'webhooks', 'rm'],
  ['dispatcher', 'webhooks', 'rotate-secret'],
  ['dispatcher', 'emit'],
  ['dispatcher', 'run'],
  ['dispatcher', 'deliveries'],
  ['dispatcher', 'deliveries', 'list'],
  ['dispatcher', 'deliveries', 'show'],
  ['dispatcher', 'deliveries', 'retry'],
  ['dispatcher', 'deliveries', 'export'],
];

describe('acct-webhook --version and --help', () => {
  it('prints the version of the package it ships in', async () => {
    const run = await runCli(['--version']);
    expect(run).toMatchObject({ exitCode: 0, stdout: `${REPO_VERSION}\n`, stderr: '' });
  });

  it('lists every command, the exit codes and examples', async () => {
    const run = await runCli(['--help']);
    expect(run.exitCode).toBe(0);
    for (const command of ['demo', 'sign', 'verify', 'trigger', 'listen', 'replay', 'dispatcher']) expect(run.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    expect(run.stdout).toMatch(/Exit codes:\n\s+0 +ok\n\s+1 .*\n\s+2 +usage error/);
    expect(run.stdout).toContain('Examples:');
  });

  it.each(COMMANDS)('has help with examples: %s …', async (...words) => {
    const run = await runCli([...words, '--help']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain(`Usage: acct-webhook ${words.join(' ')}`);
    expect(run.stdout).toMatch(/Examples:\n {2}# .+\n {2}\$ acct-webhook /);
  });

  it.each([['trigger'], ['dispatcher', 'emit']])('names all event types of the catalog in the help of %s', async (...words) => {
    const run = await runCli([...words, '--help']);
    for (const type of EVENT_TYPES) expect(run.stdout).toContain(` ${type}`);
  });
});

describe('acct-webhook with a command line it cannot use', () => {
  it('refuses an unknown command with a usage error', async () => {
    expectOneLineError(await runCli(['sgin']), 'INVALID_ARGUMENTS', 2);
  });

  it('refuses an unknown option with a usage error that points to the help', async () => {
    const run = await runCli(['sign', '--secrte', 'x']);
    expectOneLineError(run, 'INVALID_ARGUMENTS', 2);
    expect(run.stderr).toContain('acct-webhook sign --help');
  });

  it('refuses a missing required option', async () => {
    expectOneLineError(await runCli(['verify', '--secret', 'whsec_x', '--timestamp', '1']), 'INVALID_ARGUMENTS', 2);
  });

  it('prints the help on stderr and exits 2 when no command is given', async () => {
    const run = await runCli([]);
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Usage: acct-webhook');
  });

  it('adds the stack trace to the error line only with --verbose', async () => {
    const quiet = await runCli(['sign', '--secret', 'whsec_x', '--file', '/nonexistent/body.json']);
    expectOneLineError(quiet, 'UNREADABLE_FILE', 2);
    const verbose = await runCli(['sign', '--secret', 'whsec_x', '--file', '/nonexistent/body.json', '--verbose']);
    expect(verbose.exitCode).toBe(2);
    expect(verbose.stderr.split('\n')[0]).toBe(quiet.stderr.trimEnd());
    expect(verbose.stderr).toMatch(/^\s+at /m);
  });
});
