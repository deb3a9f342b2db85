import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EventType } from '../../src/events/catalog.js';
import { createTestEvent } from '../../src/testing/index.js';
import { CLI, cliEnvironment, runCli, temporaryDirectory, testSecret } from './helpers.js';
import { startReceiver } from './receivers.js';

const workspace = temporaryDirectory('cli-terminal');
afterAll(() => workspace.remove());

/**
 * The CLI on a pseudo-terminal (util-linux `script`), so stdout and stderr are TTYs: what a
 * person at a terminal sees. Resolves with everything printed, once it exits.
 */
function onTerminal(args: readonly string[]): Promise<{ exitCode: number | null; screen: string }> {
  const command = [process.execPath, CLI, ...args].map((part) => JSON.stringify(part)).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', `stty cols 160 rows 50; exec ${command}`, '/dev/null'], { env: cliEnvironment({ TERM: 'xterm-256color' }) });
    let screen = '';
    child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
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
    expect((await runCli(['dispatcher', '--db', db, 'webhooks', 'add', '--url', 'http://127.0.0.1:3000/webhooks', '--events', 'invoice.*', '--allow-insecure-urls'])).exitCode).toBe(0);
    const terminal = await onTerminal(['dispatcher', '--db', db, 'webhooks', 'list']);
    expect(terminal.exitCode).toBe(0);
    expect(terminal.screen).toMatch(/┌─+┬/);
    expect(terminal.screen).toMatch(/│ id +│ url +│ events/);
    const piped = await runCli(['dispatcher', '--db', db, 'webhooks', 'list']);
    expect(piped.stdout).not.toMatch(/[┌│]/);
  });

  it('shows a progress bar while replaying, only on a terminal', async () => {
    const secret = testSecret('terminal');
    const receiver = await startReceiver(secret);
    try {
      const types: EventType[] = ['invoice.paid', 'payment.failed', 'uva.confirmed'];
      const log = join(workspace.path, 'log.jsonl');
      writeFileSync(log, types.map((type, i) => JSON.stringify(logLine(type, i))).join('\n') + '\n');
      const args = ['replay', log, '--to', receiver.url, '--secret', secret];
      const terminal = await onTerminal(args);
      expect(terminal.exitCode).toBe(0);
      expect(terminal.screen).toMatch(/replaying \[█+░*\] \d\/3/);
      const piped = await runCli(args);
      expect(piped.exitCode).toBe(0);
      expect(piped.stdout + piped.stderr).not.toContain('replaying [');
    } finally {
      await receiver.close();
    }
  });
});

/** A line of the dispatcher's export format with what replay reads. */
function logLine(type: EventType, index: number): Record<string, unknown> {
  const event = createTestEvent(type);
  return {
    delivery_id: `dlv_terminal_${index}`,
    event_id: event.id,
    event_type: type,
    attempted_at: new Date(Date.UTC(2026, 10, 22, 9, index)).toISOString(),
    request_payload: JSON.stringify(event),
    delivery_status: 'finally_failed',
  };
}
