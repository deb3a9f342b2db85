import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { childEnvironment, REPO_ROOT, waitFor } from '../scaffold/helpers.js';
import { OUTCOME_TIMEOUT_MS } from '../helpers/patience.js';

/*
 * The built CLI as a user starts it: bin/acct-webhook.js in a subprocess (the global setup builds
 * dist when stale). Only the *.integration.test.ts files use this; everything else runs in-process.
 */

/** The launcher users run; it imports the built dist/cli.js. */
export const CLI = join(REPO_ROOT, 'bin', 'acct-webhook.js');
/** A process that has not ended by then is killed and the test fails: no test waits forever. */
const RUN_TIMEOUT_MS = OUTCOME_TIMEOUT_MS;

export interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface ProcessOptions {
  /** Variables on top of the test's environment (without vitest's, without WEBHOOK_SECRET). */
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed; stdin is an empty pipe otherwise. */
  stdin?: string;
  timeoutMs?: number;
}

/** The environment of a CLI process: no colours, and no secret unless a test gives one. */
export function cliEnvironment(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const base = childEnvironment();
  delete base.WEBHOOK_SECRET;
  return { ...base, ...env };
}

/** A CLI process with its output collected as it comes; for long-running commands, stopped by a signal. */
export class CliProcess {
  stdout = '';
  stderr = '';
  readonly child: ChildProcessWithoutNullStreams;
  private readonly exited: Promise<ProcessResult>;

  constructor(args: readonly string[], options: ProcessOptions = {}) {
    this.child = spawn(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, env: cliEnvironment(options.env) });
    this.child.stdout.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    const timer = setTimeout(() => this.kill(), options.timeoutMs ?? RUN_TIMEOUT_MS);
    this.exited = new Promise((resolve) =>
      this.child.once('close', (exitCode, signal) => {
        clearTimeout(timer);
        resolve({ exitCode, signal, stdout: this.stdout, stderr: this.stderr });
      }),
    );
    if (options.stdin !== undefined) this.child.stdin.end(options.stdin);
  }

  /** Resolves when the process has ended and its output is complete. */
  result(): Promise<ProcessResult> {
    return this.exited;
  }

  /** Waits until stdout matches `pattern` and returns the match. */
  async waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray> {
    await waitFor(() => pattern.test(this.stdout) || this.child.exitCode !== null, `${String(pattern)} on stdout; got:\n${this.stdout}\n${this.stderr}`, timeoutMs);
    const match = this.stdout.match(pattern);
    if (!match) throw new Error(`The process ended (${this.child.exitCode}) without printing ${String(pattern)}:\n${this.stdout}\n${this.stderr}`);
    return match;
  }

  /** Sends `signal` and resolves with how the process ended. */
  async stop(signal: NodeJS.Signals = 'SIGINT'): Promise<ProcessResult> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }

  /** Ends the process at once (cleanup after a failed test). */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/** `acct-webhook …args` as a subprocess with stdin an empty pipe, run to its end. */
export function runProcess(args: readonly string[], options: ProcessOptions = {}): Promise<ProcessResult> {
  return new CliProcess(args, { stdin: '', ...options }).result();
}
