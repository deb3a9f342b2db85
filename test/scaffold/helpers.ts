import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { OUTCOME_TIMEOUT_MS } from '../helpers/patience.js';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
/** The create-acct-webhook package, an npm workspace of this repository. */
export const CREATE_PACKAGE = join(REPO_ROOT, 'packages', 'create-acct-webhook');
/** The launcher users run; it imports the package's built dist/index.js (the global setup builds it when stale). */
export const LAUNCHER = join(CREATE_PACKAGE, 'bin', 'create-acct-webhook.js');
export const REPO_VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

export interface ProcessResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/** Set by the vitest running this test; a generated project's own `npm test` starts a vitest of its own. */
const VITEST_VARIABLES = /^(VITEST.*|TEST|NODE_OPTIONS|FORCE_COLOR)$/;

/** The environment for a child process: this one's, without vitest's variables and colours (output is matched as text). */
export function childEnvironment(overrides: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const inherited = Object.entries(process.env).filter(([name]) => !VITEST_VARIABLES.test(name));
  return { ...Object.fromEntries(inherited), NO_COLOR: '1', ...overrides };
}

/** Runs a command to its end and collects its output; never rejects on a non-zero exit. */
export function runProcess(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = childEnvironment()): Promise<ProcessResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (exitCode) => resolvePromise({ exitCode, stdout, stderr }));
  });
}

/** `create-acct-webhook …args` as a real subprocess, stdin not a terminal. */
export function runGenerator(args: readonly string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<ProcessResult> {
  return runProcess(process.execPath, [LAUNCHER, ...args], cwd, env);
}

export function temporaryDirectory(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `acct-webhook-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Every file under `directory`, relative with `/`, sorted; node_modules and .git left out. */
export function listFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .filter((file) => !file.startsWith('node_modules/') && !file.startsWith('.git/'))
    .sort();
}

export function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** The event types a generated handler file registers: the first argument of each `webhooks.on(…)`. */
export function registeredEvents(source: string): string[] {
  return [...source.matchAll(/webhooks\.on\('([^']+)'/g)].map((match) => match[1]!);
}

/** Polls `condition` until it holds, or fails after `timeoutMs` with `description`. */
export async function waitFor(condition: () => boolean, description: string, timeoutMs = OUTCOME_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${description}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 20));
  }
}

/**
 * better-sqlite3 comes from the registry as sources; its install script would download a
 * prebuilt binding (out of reach here: only the registry is) or compile one for 90 s. The
 * repository's node_modules holds that binding already built for this Node.js, so when the
 * versions match it is put in place in `directory`'s node_modules (installed with
 * `--ignore-scripts`), as the download would; otherwise it is compiled for real.
 */
export async function provideSqliteBinding(directory: string): Promise<void> {
  const installed = join(directory, 'node_modules', 'better-sqlite3');
  const repository = join(REPO_ROOT, 'node_modules', 'better-sqlite3');
  const binding = join('build', 'Release', 'better_sqlite3.node');
  const sameVersion = readJson<{ version: string }>(join(installed, 'package.json')).version === readJson<{ version: string }>(join(repository, 'package.json')).version;
  if (sameVersion && existsSync(join(repository, binding))) {
    mkdirSync(join(installed, 'build', 'Release'), { recursive: true });
    copyFileSync(join(repository, binding), join(installed, binding));
    return;
  }
  const rebuild = await runProcess('npm', ['rebuild', 'better-sqlite3'], directory);
  if (rebuild.exitCode !== 0) throw new Error(`npm rebuild better-sqlite3 failed: ${rebuild.stderr}`);
}
