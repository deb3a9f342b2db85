import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, REPO_VERSION, runProcess as runNodeProcess } from '../scaffold/helpers.js';
import { temporaryDirectory, testSecret, waitFor } from './helpers.js';
import { CLI, CliProcess, cliEnvironment, runProcess, type ProcessResult } from './process.js';
import { closeServer, listenOnLoopback } from './servers.js';
import { OUTCOME_TIMEOUT_MS } from '../helpers/patience.js';

/*
 * The bin as a process: what only a real process shows — the package version it reads, exit
 * codes, signals, and a reader that closes the pipe early. Everything else runs in-process.
 */

const workspace = temporaryDirectory('cli-process');
afterAll(() => workspace.remove());

/** `node <args>` to its end, outside the repository. */
const runNode = (args: readonly string[]) => runNodeProcess(process.execPath, args, workspace.path);

/** One line on stderr ending in the code, nothing else: how every refusal looks. */
function expectOneLine(result: ProcessResult, code: string): void {
  expect(result.stderr).toMatch(new RegExp(`^acct-webhook[a-z -]*: [^\\n]+ \\[${code}\\]\\n$`));
}

describe('the acct-webhook bin', () => {
  it('prints the version of the package it ships in', async () => {
    expect(await runProcess(['--version'])).toMatchObject({ exitCode: 0, stdout: `${REPO_VERSION}\n`, stderr: '' });
  });

  it.each([
    ['0 for a success', ['sign', '--secret', 'whsec_x', '--timestamp', '1763802000'], 0, undefined],
    ['1 for a signature that does not verify', ['verify', '--secret', 'whsec_x', '--signature', 'ab'.repeat(32), '--timestamp', String(Math.floor(Date.now() / 1000))], 1, 'SIGNATURE_MISMATCH'],
    ['2 for a command line it cannot use', ['sign', '--secrte', 'x'], 2, 'INVALID_ARGUMENTS'],
    ['2 for a bad option value', ['dispatcher', 'deliveries', 'list', '--limit', '0'], 2, 'INVALID_OPTION'],
  ] as const)('exits %s', async (_case, args, exitCode, code) => {
    const result = await runProcess(args, { stdin: '{"id":"evt_1"}' });
    expect(result.exitCode, result.stderr).toBe(exitCode);
    if (code !== undefined) expectOneLine(result, code);
  });
});

describe('a checkout that was not built (installing builds nothing: the package has no prepare script)', () => {
  it('the bin says to run npm run build, in one line, and exits 1', async () => {
    const checkout = join(workspace.path, 'unbuilt-checkout');
    mkdirSync(join(checkout, 'bin'), { recursive: true });
    copyFileSync(join(REPO_ROOT, 'package.json'), join(checkout, 'package.json'));
    copyFileSync(CLI, join(checkout, 'bin', 'acct-webhook.js'));
    const result = await runNode([join(checkout, 'bin', 'acct-webhook.js'), '--version']);
    expect(result).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: 'acct-webhook: dist/cli.js is missing: this is a checkout that was not built; run npm run build in it first\n',
    });
  });
});

describe('long-running commands as processes', () => {
  it('listen receives from trigger, and Ctrl-C (SIGINT) stops it: exit 0', async () => {
    const secret = testSecret('process-listen');
    const listen = new CliProcess(['listen', '--port', '0', '--secret', secret]);
    try {
      const [url] = await listen.waitForOutput(/http:\/\/127\.0\.0\.1:\d+\/webhooks/);
      const sent = await runProcess(['trigger', 'invoice.paid', '--url', url, '--id', 'evt_process_1', '--count', '2'], { env: { WEBHOOK_SECRET: secret } });
      expect(sent.exitCode).toBe(0);
      await listen.waitForOutput(/200 duplicate +invoice\.paid +evt_process_1/);
      const stopped = await listen.stop('SIGINT');
      expect(stopped.exitCode).toBe(0);
      expect(stopped.stderr).toBe('Stopped.\n');
    } finally {
      listen.kill();
    }
  });

  it('dispatcher run finishes the attempt in flight on SIGTERM, then exits 0', async () => {
    const db = join(workspace.path, 'slow.db');
    const held: (() => void)[] = [];
    const slow = createServer((req, res) => {
      req.resume();
      held.push(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    const url = `${await listenOnLoopback(slow)}/webhooks`;
    expect((await runProcess(['dispatcher', '--db', db, 'webhooks', 'add', '--url', url, '--allow-insecure-urls'])).exitCode).toBe(0);
    const run = new CliProcess(['dispatcher', '--db', db, 'run', '--allow-insecure-urls']);
    try {
      await waitFor(() => run.stderr.includes('Ctrl-C to stop'), 'the worker to start');
      expect((await runProcess(['dispatcher', '--db', db, 'emit', 'uva.submitted'])).exitCode).toBe(0);
      await waitFor(() => held.length === 1, 'the attempt to arrive');
      const stopped = run.stop('SIGTERM');
      await waitFor(() => run.stderr.includes('SIGTERM: finishing the attempts in flight'), 'the stop to begin');
      for (const answer of held) answer();
      expect((await stopped).exitCode).toBe(0);
      expect(run.stdout).toMatch(/200 delivered +uva\.submitted/);
    } finally {
      run.kill();
      await closeServer(slow);
    }
  });
});

describe('dispatcher webhooks replay, as a process', () => {
  it('queues a time range once more (the same event id again, sent by run) and refuses a call without --from', async () => {
    const db = join(workspace.path, 'replay.db');
    const received: string[] = [];
    const target = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push((JSON.parse(body) as { id: string }).id);
        res.writeHead(204).end();
      });
    });
    const url = `${await listenOnLoopback(target)}/webhooks`;
    try {
      const from = new Date(Date.now() - 60_000).toISOString();
      const business = 'biz_4mVt9QeZxK2hRw7L'; // the catalog's samples' business, which emit sends
      expect((await runProcess(['dispatcher', '--db', db, 'webhooks', 'add', '--url', url, '--business', business, '--events', 'invoice.*', '--allow-insecure-urls'])).exitCode).toBe(0);
      const list = await runProcess(['dispatcher', '--db', db, 'webhooks', 'list', '--json']);
      const [webhook] = JSON.parse(list.stdout) as { id: string }[];
      // The first delivery goes out, then the range is replayed: the same event once more.
      expect((await runProcess(['dispatcher', '--db', db, 'emit', 'invoice.paid'])).exitCode).toBe(0);
      const first = new CliProcess(['dispatcher', '--db', db, 'run', '--allow-insecure-urls']);
      await waitFor(() => received.length === 1, 'the first delivery');
      const replay = await runProcess(['dispatcher', '--db', db, 'webhooks', 'replay', webhook!.id, '--from', from, '--json']);
      expect(replay.exitCode, replay.stderr).toBe(0);
      expect(JSON.parse(replay.stdout)).toEqual({ matched: 1, queued: 1, skipped: 0, payload_removed: 0 });
      await waitFor(() => received.length === 2, 'the replayed delivery');
      expect(received[1]).toBe(received[0]);
      expect((await first.stop('SIGTERM')).exitCode).toBe(0);
      const refused = await runProcess(['dispatcher', '--db', db, 'webhooks', 'replay', webhook!.id]);
      expect(refused.exitCode).toBe(2);
      expectOneLine(refused, 'INVALID_ARGUMENTS');
    } finally {
      await closeServer(target);
    }
  });
});

describe('a reader that closes the pipe early', () => {
  /** The bin with its stdout closed by the reader before anything is written. */
  function withClosedStdout(args: readonly string[]): Promise<{ exitCode: number | null; signal: NodeJS.Signals | null; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, ...args], { env: cliEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), OUTCOME_TIMEOUT_MS);
      child.once('error', reject);
      child.once('close', (exitCode, signal) => {
        clearTimeout(timer);
        resolve({ exitCode, signal, stderr });
      });
    });
  }

  it.each([['--help'], ['dispatcher deliveries list --help'], ['--version']])('%s: exits quietly (141, as after SIGPIPE), no stack trace', async (command) => {
    const result = await withClosedStdout(command.split(' '));
    expect(result.stderr).toBe('');
    expect(result).toMatchObject({ exitCode: 141, signal: null });
  });

  it('listen --json: stops as on SIGTERM (closing its server) and exits quietly', async () => {
    const result = await withClosedStdout(['listen', '--port', '0', '--secret', testSecret('pipe'), '--json']);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(141);
  });

  it('acct-webhook --help | head -1: the first line, and nothing on stderr', async () => {
    const result = await new Promise<{ stdout: string; stderr: string }>((resolve) => {
      const shell = spawn('sh', ['-c', `"${process.execPath}" "${CLI}" --help | head -1`], { env: cliEnvironment() });
      let stdout = '';
      let stderr = '';
      shell.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      shell.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      shell.once('close', () => resolve({ stdout, stderr }));
    });
    expect(result).toEqual({ stdout: 'Usage: acct-webhook [options] [command]\n', stderr: '' });
  });
});
