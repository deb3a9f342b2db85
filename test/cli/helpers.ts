import { PassThrough, Writable } from 'node:stream';
import { expect } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/run.js';
import { StopRequests, type StopReason } from '../../src/cli/stop-requests.js';
import { waitFor } from '../scaffold/helpers.js';

export { temporaryDirectory, waitFor } from '../scaffold/helpers.js';

/*
 * `acct-webhook …` in this process, through the same `runCli(argv, io)` the bin calls, with
 * streams, environment and stop requests of the test's own: no build, no subprocess. The
 * process-level behaviour (bins, signals, pipes, terminals) is proven by *.integration.test.ts.
 */

/** The version the in-process CLI reports (the bin reads the package's own). */
export const TEST_VERSION = '9.8.7-test';

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** The whole environment the command sees: no WEBHOOK_SECRET, no colours unless given. */
  env?: NodeJS.ProcessEnv;
  /** Piped to stdin, which then ends; an empty pipe otherwise. */
  stdin?: string | Buffer;
  /** stdin is a terminal: nothing is piped. */
  stdinIsTerminal?: boolean;
  /** stdout and stderr are terminals this wide. */
  terminalColumns?: number;
}

/** A stream that keeps what is written to it, and may claim to be a terminal. */
class Capture extends Writable {
  text = '';
  isTTY?: boolean;
  columns?: number;

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

function capture(columns: number | undefined): Capture {
  const stream = new Capture();
  if (columns !== undefined) Object.assign(stream, { isTTY: true, columns });
  return stream;
}

/** A command started in this process; long-running ones (listen, dispatcher run) run until {@link stop}. */
export class CommandRun {
  readonly exited: Promise<number>;
  private readonly out: Capture;
  private readonly err: Capture;
  private readonly stopRequests = new StopRequests();

  constructor(argv: readonly string[], options: RunOptions = {}) {
    this.out = capture(options.terminalColumns);
    this.err = capture(options.terminalColumns);
    const stdin = Object.assign(new PassThrough(), options.stdinIsTerminal ? { isTTY: true } : {});
    if (!options.stdinIsTerminal) stdin.end(options.stdin ?? '');
    const io: CliIo = { stdout: this.out, stderr: this.err, stdin, env: options.env ?? {}, version: TEST_VERSION, stopRequests: this.stopRequests };
    this.exited = runCli(argv, io);
  }

  get stdout(): string {
    return this.out.text;
  }

  get stderr(): string {
    return this.err.text;
  }

  /** Waits until stdout matches `pattern` and returns the match; fails if the command ends first. */
  async waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray> {
    let ended = false;
    void this.exited.then(() => (ended = true));
    await waitFor(() => pattern.test(this.stdout) || ended, `${String(pattern)} on stdout; got:\n${this.stdout}\n${this.stderr}`, timeoutMs);
    const match = this.stdout.match(pattern);
    if (!match) throw new Error(`The command ended without printing ${String(pattern)}:\n${this.stdout}\n${this.stderr}`);
    return match;
  }

  /** Asks the command to stop as Ctrl-C (or `reason`) would, once it waits for that, and resolves with its exit code. */
  async stop(reason: StopReason = 'SIGINT'): Promise<number> {
    let ended = false;
    void this.exited.then(() => (ended = true));
    await waitFor(() => ended || this.stopRequests.request(reason), 'the command to wait for a stop request');
    return this.exited;
  }

  async result(): Promise<CliResult> {
    const exitCode = await this.exited;
    return { exitCode, stdout: this.stdout, stderr: this.stderr };
  }
}

/** `acct-webhook …argv` in this process, run to its end. */
export function runCommand(argv: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  return new CommandRun(argv, options).result();
}

/** `acct-webhook listen` on a free port; resolves once it prints its URL. */
export async function startListen(args: readonly string[], options: RunOptions = {}): Promise<{ run: CommandRun; url: string }> {
  const run = new CommandRun(['listen', '--port', '0', ...args], options);
  const [url] = await run.waitForOutput(/http:\/\/127\.0\.0\.1:\d+\/[^\s"]*/);
  return { run, url };
}

/**
 * What every refusal looks like: exit code, nothing on stdout, and exactly one line on stderr —
 * `acct-webhook <command>: … [CODE]` — without a stack trace.
 */
export function expectOneLineError(result: CliResult, code: string, exitCode: number): void {
  expect(result.stderr.split('\n').filter((line) => line !== ''), result.stderr).toHaveLength(1);
  expect(result.stderr).toMatch(new RegExp(`^acct-webhook[a-z -]*: .+ \\[${code}\\]\\n$`));
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.exitCode).toBe(exitCode);
}

/** A whsec_… secret for a test. */
export function testSecret(name = 'cli'): string {
  return `whsec_test_${name}_${Math.random().toString(36).slice(2)}`;
}
