import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { temporaryDirectory } from './helpers.js';
import { CLI, cliEnvironment, runProcess } from './process.js';
import { OUTCOME_TIMEOUT_MS } from '../helpers/patience.js';

const workspace = temporaryDirectory('cli-terminal');
afterAll(() => workspace.remove());

/**
 * The built CLI on a pseudo-terminal (util-linux `script`), so stdin, stdout and stderr are TTYs:
 * what a person at a terminal sees. Resolves with everything printed, once it exits.
 */
function onTerminal(args: readonly string[]): Promise<{ exitCode: number | null; screen: string }> {
  const command = [process.execPath, CLI, ...args].map((part) => JSON.stringify(part)).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', `stty cols 160 rows 50; exec ${command}`, '/dev/null'], { env: cliEnvironment({ TERM: 'xterm-256color' }) });
    let screen = '';
    child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), OUTCOME_TIMEOUT_MS);
    child.once('error', reject);
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, screen });
    });
  });
}

describe('acct-webhook on a terminal', () => {
  it('does not wait for a body typed on a terminal: MISSING_INPUT', async () => {
    const terminal = await onTerminal(['sign', '--secret', 'whsec_x']);
    expect(terminal.exitCode).toBe(2);
    expect(terminal.screen).toMatch(/^acct-webhook sign: .+ \[MISSING_INPUT\]\r?\n$/);
  });

  it('draws tables with borders (and plain aligned columns in a pipe)', async () => {
    const db = join(workspace.path, 'dispatch.db');
    expect((await runProcess(['dispatcher', '--db', db, 'webhooks', 'add', '--url', 'http://127.0.0.1:3000/webhooks', '--events', 'invoice.*', '--allow-insecure-urls'])).exitCode).toBe(0);
    const terminal = await onTerminal(['dispatcher', '--db', db, 'webhooks', 'list']);
    expect(terminal.exitCode).toBe(0);
    expect(terminal.screen).toMatch(/┌─+┬/);
    expect(terminal.screen).toMatch(/│ id +│ url +│ events/);
    const piped = await runProcess(['dispatcher', '--db', db, 'webhooks', 'list']);
    expect(piped.stdout).not.toMatch(/[┌│]/);
  });
});
