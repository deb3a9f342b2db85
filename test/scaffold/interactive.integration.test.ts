import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES, expandEventPattern } from '../../src/events/catalog.js';
import { childEnvironment, LAUNCHER, listFiles, readJson, registeredEvents, temporaryDirectory, waitFor } from './helpers.js';

const KEYS = { enter: '\r', space: ' ', up: '\u001b[A', down: '\u001b[B', backspace: '\u007f', ctrlC: '\u0003' };
// eslint-disable-next-line no-control-regex
const ANSI_SEQUENCE = /\u001b\[[0-9;?]*[A-Za-z]/g;

/**
 * The generator on a pseudo-terminal: util-linux `script` gives it one, so stdin and stdout are
 * TTYs and it asks its questions. Keys are written one at a time, each after the screen has
 * answered the previous one.
 */
class Terminal {
  private output = '';
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly exited: Promise<number | null>;

  constructor(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv) {
    const command = [process.execPath, LAUNCHER, ...args].map((part) => JSON.stringify(part)).join(' ');
    // A pseudo-terminal starts 0 columns wide; the prompts need a real width to lay out.
    this.child = spawn('script', ['-qfec', `stty cols 120 rows 50; exec ${command}`, '/dev/null'], { cwd, env });
    this.child.stdout.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  /** What was printed so far, without colours and cursor movements. */
  get screen(): string {
    return this.output.replace(ANSI_SEQUENCE, '');
  }

  async waitFor(text: string): Promise<void> {
    await waitFor(() => this.screen.includes(text), `"${text}" on the terminal; it shows:\n${this.screen.slice(-2000)}`);
  }

  /** Types `keys` and waits until the prompt has redrawn in answer. */
  async press(keys: string): Promise<void> {
    const before = this.output.length;
    this.child.stdin.write(keys);
    await waitFor(() => this.output.length > before, `an answer to ${JSON.stringify(keys)}`);
  }

  exit(): Promise<number | null> {
    return this.exited;
  }
}

const workspace = temporaryDirectory('scaffold-interactive');
afterAll(() => workspace.remove());

/** A terminal session as a person has it: no CI variable, a terminal type. */
function personalEnvironment(overrides: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = childEnvironment({ TERM: 'xterm-256color', ...overrides });
  if (overrides.CI === undefined) delete env.CI;
  return env;
}

describe('create-acct-webhook on a terminal', () => {
  it('asks for the name, events, store and adapter, and generates what was answered', async () => {
    const terminal = new Terminal(['--no-install', '--no-git'], workspace.path, personalEnvironment());

    await terminal.waitFor('Project name');
    // An invalid npm name is refused in place: the question stays.
    await terminal.press('Bad Name');
    await terminal.press(KEYS.enter);
    expect(terminal.screen).not.toContain('Which events');
    await terminal.press(KEYS.backspace.repeat('Bad Name'.length));
    await terminal.press('pty-receiver');
    await terminal.press(KEYS.enter);

    // The events start as invoice.* and payment.*, the cursor on the first group, "Invoices".
    await terminal.waitFor('Which events');
    await terminal.press(KEYS.space); // unselects the whole Invoices group
    await terminal.press(KEYS.up); // wraps around to the last event of the last group
    await terminal.press(KEYS.space);
    await terminal.press(KEYS.enter);

    await terminal.waitFor('Where should handled event ids be remembered?');
    await terminal.press(KEYS.down); // sqlite → memory
    await terminal.press(KEYS.enter);

    await terminal.waitFor('How should the receiver be served?');
    for (let step = 0; step < 3; step++) await terminal.press(KEYS.down); // express → fastify → hono → node
    await terminal.press(KEYS.enter);

    expect(await terminal.exit()).toBe(0);
    const project = join(workspace.path, 'pty-receiver');
    expect(readJson<{ name: string }>(join(project, 'package.json')).name).toBe('pty-receiver');
    expect(listFiles(join(project, 'src', 'handlers'))).toEqual(['index.ts', 'payments.ts', 'uva.ts']);
    expect(registeredEvents(readFileSync(join(project, 'src/handlers/payments.ts'), 'utf8'))).toEqual(expandEventPattern('payment.*'));
    expect(registeredEvents(readFileSync(join(project, 'src/handlers/uva.ts'), 'utf8'))).toEqual([EVENT_TYPES.at(-1)]);
    expect(readFileSync(join(project, 'src/store.ts'), 'utf8')).toContain('memoryStore()');
    expect(readFileSync(join(project, 'src/app.ts'), 'utf8')).toContain('nodeHandler({');
  });

  it('asks only what the flags left open, and writes nothing when cancelled with Ctrl-C', async () => {
    const terminal = new Terminal(['cancelled-receiver', '--events', 'invoice.paid', '--store', 'memory', '--no-install', '--no-git'], workspace.path, personalEnvironment());

    await terminal.waitFor('How should the receiver be served?');
    expect(terminal.screen).not.toMatch(/Project name|Which events|Where should handled/);
    await terminal.press(KEYS.ctrlC);

    expect(await terminal.exit()).toBe(130);
    expect(terminal.screen).toContain('[CANCELLED]');
    expect(existsSync(join(workspace.path, 'cancelled-receiver'))).toBe(false);
  });

  it('asks nothing when CI is set, even on a terminal, and uses the defaults', async () => {
    const terminal = new Terminal(['ci-receiver', '--no-install', '--no-git'], workspace.path, personalEnvironment({ CI: 'true' }));

    expect(await terminal.exit()).toBe(0);
    const project = join(workspace.path, 'ci-receiver');
    expect(listFiles(join(project, 'src', 'handlers'))).toEqual(['index.ts', 'invoices.ts', 'payments.ts']);
    expect(readFileSync(join(project, 'src/app.ts'), 'utf8')).toContain('webhookHandler({');
    expect(readFileSync(join(project, 'src/store.ts'), 'utf8')).toContain('sqliteStore(');
  });
});
