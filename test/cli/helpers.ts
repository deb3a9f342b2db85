import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect } from 'vitest';
import { childEnvironment, REPO_ROOT, waitFor } from '../scaffold/helpers.js';

export { REPO_ROOT, REPO_VERSION, temporaryDirectory, waitFor } from '../scaffold/helpers.js';

/** The launcher users run; it imports the built dist/cli.js (the global setup builds it when stale). */
export const CLI = join(REPO_ROOT, 'bin', 'acct-webhook.js');
/** A process that has not ended by then is killed and the test fails: no test waits forever. */
const RUN_TIMEOUT_MS = 15_000;

export interface CliResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  /** Variables on top of the test's environment (without vitest's, without WEBHOOK_SECRET). */
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed; stdin is an empty pipe otherwise. */
  stdin?: string | Buffer;
  timeoutMs?: number;
}

/** The environment of a CLI process: no colours, and no secret unless a test gives one. */
export function cliEnvironment(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const base = childEnvironment();
  delete base.WEBHOOK_SECRET;
  return { ...base, ...env };
}

/** `acct-webhook …args` as a real subprocess, run to its end. */
export function runCli(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd ?? REPO_ROOT, env: cliEnvironment(options.env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? RUN_TIMEOUT_MS);
    child.once('error', reject);
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
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

/** A long-running CLI command (listen, dispatcher run) with its output collected as it comes. */
export class CliProcess {
  stdout = '';
  stderr = '';
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly exited: Promise<number | null>;

  constructor(args: readonly string[], options: Omit<RunOptions, 'stdin'> = {}) {
    this.child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd ?? REPO_ROOT, env: cliEnvironment(options.env) });
    this.child.stdout.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  /** Waits until stdout matches `pattern` and returns the match. */
  async waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray> {
    await waitFor(() => pattern.test(this.stdout) || this.child.exitCode !== null, `${String(pattern)} on stdout; got:\n${this.stdout}\n${this.stderr}`, timeoutMs);
    const match = this.stdout.match(pattern);
    if (!match) throw new Error(`The process ended (${this.child.exitCode}) without printing ${String(pattern)}:\n${this.stdout}\n${this.stderr}`);
    return match;
  }

  /** Sends `signal` and resolves with the exit code; SIGKILL if it does not end in time. */
  async stop(signal: NodeJS.Signals = 'SIGINT'): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends the process at once (cleanup after a failed test). */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/** `acct-webhook listen` on a free port; resolves once it prints its URL. */
export async function startListen(args: readonly string[], options: Omit<RunOptions, 'stdin'> = {}): Promise<{ process: CliProcess; url: string }> {
  const listen = new CliProcess(['listen', '--port', '0', ...args], options);
  const [url] = await listen.waitForOutput(/http:\/\/127\.0\.0\.1:\d+\/[^\s"]*/);
  return { process: listen, url };
}

/** One request as a server saw it. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** A loopback HTTP server that records every request and answers with `answer`. */
export interface Recorder {
  url: string;
  requests: RecordedRequest[];
  server: Server;
  close(): Promise<void>;
}

export type Answer = (request: RecordedRequest) => { status: number; body?: unknown };

export async function startRecorder(answer: Answer = () => ({ status: 200, body: { ok: true } })): Promise<Recorder> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      requests.push(request);
      const { status, body } = answer(request);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {}));
    });
  });
  const url = await listenOnLoopback(server);
  return { url: `${url}/webhooks`, requests, server, close: () => closeServer(server) };
}

export async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A port on 127.0.0.1 that nothing listens on: it was free a moment ago and is closed again. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await listenOnLoopback(server);
  const { port } = server.address() as AddressInfo;
  await closeServer(server);
  return port;
}

/** A whsec_… secret for a test. */
export function testSecret(name = 'cli'): string {
  return `whsec_test_${name}_${Math.random().toString(36).slice(2)}`;
}
