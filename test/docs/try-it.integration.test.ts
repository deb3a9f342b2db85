import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closedPort } from '../cli/servers.js';
import { codeBlocks } from './code-blocks.js';

/*
 * The README's "Try it in a minute" block, run as a user runs it: its lines pasted one by one
 * into one bash, in a directory where `npx acct-webhook` is this repository's built CLI. The
 * only change is the ports: 4010, 3000 and 4020 become free ones, so that the test does not
 * depend on what else runs on the machine. A line that starts a server in the background is
 * followed once the server printed that it listens (as a reader waits for the banner); every
 * other line once it finished.
 */

const root = resolve(import.meta.dirname, '..', '..');
const README = readFileSync(join(root, 'README.md'), 'utf8');
/** The servers the block starts in the background, and the line each prints once it listens. */
const READY: Record<string, RegExp> = { sandbox: /^Sandbox on http/m, listen: /^Listening on http/m, dashboard: /^Dashboard: http/m };
const EVENTS = ['customer.created', 'invoice.created', 'invoice.sent', 'payment.received', 'invoice.paid'];

function tryItBlock(): string[] {
  const heading = README.split('\n').indexOf('## Try it in a minute') + 1;
  expect(heading, 'README.md has a "Try it in a minute" section').toBeGreaterThan(0);
  const block = codeBlocks('README.md', README).find((candidate) => candidate.line > heading && candidate.language === 'sh');
  return block!.code.split('\n').filter((line) => line.trim() !== '');
}

describe("the README's Try it in a minute", () => {
  const directory = mkdtempSync(join(tmpdir(), 'acct-webhook-try-it-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('starts the sandbox, a receiver and the dashboard; the receiver handles each of the five events once and its duplicate as a duplicate', { timeout: 60_000 }, async () => {
    // `npx acct-webhook` finds the package's bin in node_modules/.bin, as after `npm install acct-webhook`.
    mkdirSync(join(directory, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(root, join(directory, 'node_modules', 'acct-webhook'));
    symlinkSync(join(root, 'bin', 'acct-webhook.js'), join(directory, 'node_modules', '.bin', 'acct-webhook'));

    const ports = { 4010: await closedPort(), 3000: await closedPort(), 4020: await closedPort() };
    const lines = tryItBlock().map((line) => line.replace(/\b(4010|3000|4020)\b/g, (port) => String(ports[port as unknown as keyof typeof ports])));
    expect(lines.filter((line) => line.trimEnd().split('#')[0]!.trim().endsWith('&'))).toHaveLength(2);

    // One bash, as a terminal has; detached, so that it and its background jobs are one process group to end.
    const bash = spawn('bash', ['--norc', '--noprofile'], { cwd: directory, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    const waiters: { pattern: RegExp; from: number; resolve: () => void }[] = [];
    const received = (chunk: Buffer) => {
      output += chunk.toString();
      for (const waiter of waiters.splice(0)) {
        if (waiter.pattern.test(output.slice(waiter.from))) waiter.resolve();
        else waiters.push(waiter);
      }
    };
    bash.stdout.on('data', received);
    bash.stderr.on('data', received);
    const printed = (pattern: RegExp, from = 0) =>
      new Promise<void>((resolve) => {
        if (pattern.test(output.slice(from))) resolve();
        else waiters.push({ pattern, from, resolve });
      });

    try {
      for (const [index, line] of lines.entries()) {
        const from = output.length;
        const server = /npx acct-webhook (\w+)/.exec(line)?.[1];
        if (server && server in READY) {
          bash.stdin.write(`${line}\n`);
          await printed(READY[server]!, from);
        } else {
          bash.stdin.write(`${line}\necho "__line_${index}_done $?"\n`);
          await printed(new RegExp(`__line_${index}_done (\\d+)`), from);
          expect(output.slice(from), line).toContain(`__line_${index}_done 0`);
        }
      }

      // The receiver prints each event handled once, and each second copy (the fault) as a duplicate.
      for (const type of EVENTS) {
        await printed(new RegExp(`200 handled +${type.replace('.', '\\.')} `));
        await printed(new RegExp(`200 duplicate +${type.replace('.', '\\.')} `));
      }
      for (const type of EVENTS) expect(output.match(new RegExp(`200 handled +${type.replace('.', '\\.')} `, 'g')), type).toHaveLength(1);

      // The URL the dashboard printed opens it, and it shows the deliveries.
      const url = /Dashboard: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(output)![1]!;
      const login = await fetch(url, { redirect: 'manual', headers: { accept: 'text/html' } });
      const cookie = login.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');
      const deliveries = await fetch(new URL('/deliveries', url), { headers: { accept: 'text/html', cookie } });
      expect(deliveries.status).toBe(200);
      const page = await deliveries.text();
      for (const type of EVENTS) expect(page, type).toContain(type);
    } finally {
      const ended = new Promise((resolve) => bash.once('exit', resolve));
      process.kill(-bash.pid!, 'SIGTERM');
      await ended;
    }
  });
});
