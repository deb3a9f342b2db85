import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closedPort } from '../cli/servers.js';
import { codeBlocks } from './code-blocks.js';

/*
 * The README's "Try it in a minute" block, run as a user runs it: pasted whole into one bash, in a
 * directory where `npx acct-webhook` is this repository's built CLI — on an idle machine, and
 * beside busy processes that keep every core at work (a loaded 2-core machine takes seconds to
 * start each server). Nothing waits for the block but the block itself (its `up` lines); the
 * test only watches the outcome. The only change is the ports: 4010, 3000 and 4020 become free
 * ones, so that the test does not depend on what else runs on the machine.
 */

const root = resolve(import.meta.dirname, '..', '..');
const README = readFileSync(join(root, 'README.md'), 'utf8');
/** Lines that mean the block went wrong: a receiver without its secret or refusing the deliveries, a server not reached. */
const FAILURE = /MISSING_SECRET|SIGNATURE_MISMATCH|ECONNREFUSED|curl: \(\d+\)|command not found/;
const EVENTS = ['customer.created', 'invoice.created', 'invoice.sent', 'payment.received', 'invoice.paid'];

function tryItBlock(): string[] {
  const heading = README.split('\n').indexOf('## Try it in a minute') + 1;
  expect(heading, 'README.md has a "Try it in a minute" section').toBeGreaterThan(0);
  const block = codeBlocks('README.md', README).find((candidate) => candidate.line > heading && candidate.language === 'sh');
  return block!.code.split('\n').filter((line) => line.trim() !== '');
}

/** Processes that spin on every core until stopped: the load a busy machine has. */
function busyProcesses(): ChildProcess[] {
  return Array.from({ length: availableParallelism() }, () => spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }));
}

describe("the README's Try it in a minute", () => {
  const directories: string[] = [];
  afterAll(() => {
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  });

  it.each(['an idle machine', 'a machine with every core busy'])('pasted whole on %s: the sandbox, a receiver and the dashboard start; each of the five events is handled once and its duplicate acknowledged as one', async (machine) => {
    const directory = mkdtempSync(join(tmpdir(), 'acct-webhook-try-it-'));
    directories.push(directory);
    // `npx acct-webhook` finds the package's bin in node_modules/.bin, as after `npm install acct-webhook`.
    mkdirSync(join(directory, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(root, join(directory, 'node_modules', 'acct-webhook'));
    symlinkSync(join(root, 'bin', 'acct-webhook.js'), join(directory, 'node_modules', '.bin', 'acct-webhook'));

    const ports = { 4010: await closedPort(), 3000: await closedPort(), 4020: await closedPort() };
    const lines = tryItBlock().map((line) => line.replace(/\b(4010|3000|4020)\b/g, (port) => String(ports[port as unknown as keyof typeof ports])));
    const background = lines.filter((line) => line.trimEnd().split('#')[0]!.trim().endsWith('&'));
    expect(background).toHaveLength(2);
    // Each server started in the background is waited for on the next line, before anything uses it.
    for (const line of background) expect(lines[lines.indexOf(line) + 1], line).toMatch(/^up http:\/\/127\.0\.0\.1:\d+\//);

    const load = machine.includes('busy') ? busyProcesses() : [];
    // One bash, as a terminal has; detached, so that it and its background jobs are one process group to end.
    const bash = spawn('bash', ['--norc', '--noprofile'], { cwd: directory, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    const waiters: { pattern: RegExp; resolve: () => void; reject: (error: Error) => void }[] = [];
    // What the block prints when it has gone wrong: the test fails at once with the whole output,
    // instead of waiting for lines that will never come.
    const broken = () => FAILURE.exec(output)?.[0];
    const received = (chunk: Buffer) => {
      output += chunk.toString();
      const failure = broken();
      for (const waiter of waiters.splice(0)) {
        if (waiter.pattern.test(output)) waiter.resolve();
        else if (failure !== undefined) waiter.reject(new Error(`the block printed ${failure}:\n${output}`));
        else waiters.push(waiter);
      }
    };
    bash.stdout.on('data', received);
    bash.stderr.on('data', received);
    const printed = (pattern: RegExp) =>
      new Promise<void>((resolve, reject) => {
        const failure = broken();
        if (pattern.test(output)) resolve();
        else if (failure !== undefined) reject(new Error(`the block printed ${failure}:\n${output}`));
        else waiters.push({ pattern, resolve, reject });
      });

    try {
      // The paste: every line at once, as a terminal hands it to bash.
      bash.stdin.write(`${lines.join('\n')}\n`);
      const url = await Promise.race([
        printed(/Dashboard: http:\/\/127\.0\.0\.1:\d+\/\?token=\S+/).then(() => /Dashboard: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(output)![1]!),
        new Promise<never>((_, reject) => bash.once('exit', () => reject(new Error(`bash ended before the dashboard started:\n${output}`)))),
      ]);

      // The receiver prints each event handled once, and each second copy (the fault) as a duplicate.
      for (const type of EVENTS) {
        await printed(new RegExp(`200 handled +${type.replace('.', '\\.')} `));
        await printed(new RegExp(`200 duplicate +${type.replace('.', '\\.')} `));
      }
      for (const type of EVENTS) expect(output.match(new RegExp(`200 handled +${type.replace('.', '\\.')} `, 'g')), type).toHaveLength(1);
      expect(output).not.toMatch(FAILURE);

      // The URL the dashboard printed opens it, and it shows the deliveries.
      const login = await fetch(url, { redirect: 'manual', headers: { accept: 'text/html' } });
      const cookie = login.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');
      const deliveries = await fetch(new URL('/deliveries', url), { headers: { accept: 'text/html', cookie } });
      expect(deliveries.status).toBe(200);
      const page = await deliveries.text();
      for (const type of EVENTS) expect(page, type).toContain(type);
    } finally {
      for (const child of load) child.kill('SIGKILL');
      if (bash.exitCode === null) {
        const ended = new Promise((resolve) => bash.once('exit', resolve));
        process.kill(-bash.pid!, 'SIGTERM');
        await ended;
      }
    }
  });
});
