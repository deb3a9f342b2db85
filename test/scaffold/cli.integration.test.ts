import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_GROUPS, EVENT_TYPES, expandEventPattern, type EventGroup } from '../../src/events/catalog.js';
import { childEnvironment, CREATE_PACKAGE, LAUNCHER, listFiles, readJson, registeredEvents, REPO_VERSION, runGenerator, runProcess, temporaryDirectory } from './helpers.js';

interface GeneratedPackage {
  name: string;
  type: string;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  allowScripts?: Record<string, boolean>;
  pnpm?: { onlyBuiltDependencies: string[] };
}

const QUIET = ['--yes', '--no-install', '--no-git'];
const workspace = temporaryDirectory('scaffold-cli');
afterAll(() => workspace.remove());

/** A fresh, empty directory to run the generator in. */
let counter = 0;
function freshDirectory(): string {
  const path = join(workspace.path, `case-${++counter}`);
  mkdirSync(path);
  return path;
}

function read(project: string, file: string): string {
  return readFileSync(join(project, file), 'utf8');
}

/** Generates into `<fresh dir>/<name>` and returns the project path; the run must succeed. */
async function generate(name: string, flags: readonly string[]): Promise<string> {
  const cwd = freshDirectory();
  const run = await runGenerator([name, ...flags], cwd);
  expect(run.stderr).toBe('');
  expect(run.exitCode).toBe(0);
  return join(cwd, name);
}

describe('create-acct-webhook --help and --version', () => {
  it('prints the version of the package it ships in', async () => {
    const run = await runGenerator(['--version'], freshDirectory());
    expect(run).toMatchObject({ exitCode: 0, stdout: `${REPO_VERSION}\n`, stderr: '' });
  });

  it('lists every flag of the interface', async () => {
    const run = await runGenerator(['--help'], freshDirectory());
    expect(run.exitCode).toBe(0);
    for (const flag of ['[dir]', '--events', '--store', '--adapter', '--package-manager', '--acct-webhook', '--no-install', '--no-git', '--force', '--yes']) {
      expect(run.stdout).toContain(flag);
    }
  });
});

describe('the default project (--yes: Express, SQLite, invoice and payment events)', () => {
  let project: string;
  let pkg: GeneratedPackage;

  beforeAll(async () => {
    project = await generate('my-receiver', QUIET);
    pkg = readJson<GeneratedPackage>(join(project, 'package.json'));
  });

  it('has the documented files, dotfiles restored from their _ names', () => {
    expect(listFiles(project)).toEqual([
      '.env.example',
      '.github/workflows/ci.yml',
      '.gitignore',
      'README.md',
      'package.json',
      'src/app.ts',
      'src/config.ts',
      'src/handlers/index.ts',
      'src/handlers/invoices.ts',
      'src/handlers/payments.ts',
      'src/health.ts',
      'src/lifecycle.ts',
      'src/server.ts',
      'src/store.ts',
      'test/webhooks.test.ts',
      'tsconfig.build.json',
      'tsconfig.json',
    ]);
  });

  it('depends on acct-webhook at the generator\'s own version, with scripts to start, develop and test', () => {
    expect(pkg.name).toBe('my-receiver');
    expect(pkg.type).toBe('module');
    expect(pkg.dependencies['acct-webhook']).toBe(`^${REPO_VERSION}`);
    // better-sqlite3 for the SQLite store: acct-webhook has it only as an optional dependency.
    expect(Object.keys(pkg.dependencies)).toEqual(expect.arrayContaining(['express', 'pino', 'better-sqlite3']));
    // tsx runs the sources in development only: npm start runs what npm run build compiled.
    expect(Object.keys(pkg.devDependencies)).toEqual(expect.arrayContaining(['tsx', 'typescript', 'vitest', '@types/node', '@types/express']));
    expect(pkg.scripts).toMatchObject({ build: 'tsc -p tsconfig.build.json', start: 'node --enable-source-maps dist/server.js', dev: 'tsx watch src/server.ts' });
    // npm 12 runs no install script that allowScripts does not name; better-sqlite3 needs its own.
    expect(pkg.allowScripts).toMatchObject({ 'better-sqlite3': true });
  });

  it('mounts webhookHandler in Express and remembers event ids in SQLite (WEBHOOK_DB)', () => {
    expect(read(project, 'src/app.ts')).toMatch(/app\.use\(receiver\)/);
    expect(read(project, 'src/app.ts')).toContain('webhookHandler({');
    expect(read(project, 'src/store.ts')).toContain('sqliteStore(env.WEBHOOK_DB');
    const environment = read(project, '.env.example');
    for (const variable of ['WEBHOOK_SECRET=', 'PORT=3000', 'WEBHOOK_DB=']) expect(environment).toContain(variable);
  });

  it('handles exactly the events of the default patterns, one handler file per group', () => {
    expect(registeredEvents(read(project, 'src/handlers/invoices.ts'))).toEqual(expandEventPattern('invoice.*'));
    expect(registeredEvents(read(project, 'src/handlers/payments.ts'))).toEqual(expandEventPattern('payment.*'));
  });

  it('documents running, testing and triggering a sample event with the CLI', () => {
    const readme = read(project, 'README.md');
    expect(readme).toContain('npm run dev');
    expect(readme).toContain('npm test');
    expect(readme).toContain('npx acct-webhook trigger invoice.paid --url http://localhost:3000/webhooks --secret "$WEBHOOK_SECRET"');
  });

  it('has a CI workflow that installs from the lockfile and runs the tests, and listens on HOST, 127.0.0.1 by default', () => {
    const ci = read(project, '.github/workflows/ci.yml');
    expect(ci).toContain('      - run: npm ci\n      - run: npm test\n      - run: npm run build\n');
    expect(ci).not.toContain('corepack');
    expect(read(project, 'src/config.ts')).toContain("export const DEFAULT_HOST = '127.0.0.1';");
    expect(read(project, 'src/server.ts')).toContain('app.server.listen(config.port, config.host,');
    expect(read(project, 'README.md')).toContain('HOST=0.0.0.0');
  });

  it('leaves no placeholder unfilled', () => {
    for (const file of listFiles(project)) expect(read(project, file), file).not.toMatch(/\{\{\w+\}\}/);
  });
});

describe('choices', () => {
  it('derives the handler files and their events from --events and the catalog', async () => {
    const project = await generate('chosen', ['--events', 'customer.*,uva.rejected,invoice.paid', ...QUIET]);
    const expected: Partial<Record<EventGroup, string[]>> = {
      invoices: ['invoice.paid'],
      customers: expandEventPattern('customer.*'),
      uva: ['uva.rejected'],
    };
    const handlerFiles = listFiles(join(project, 'src/handlers')).filter((file) => file !== 'index.ts');
    expect(handlerFiles.sort()).toEqual(Object.keys(expected).map((group) => `${group}.ts`).sort());
    for (const [group, types] of Object.entries(expected)) {
      expect(registeredEvents(read(project, `src/handlers/${group}.ts`))).toEqual(types);
    }
    const index = read(project, 'src/handlers/index.ts');
    for (const group of Object.keys(expected)) expect(index).toContain(`from './${group}.js'`);
  });

  it('takes every event with --events "*", in the groups of the platform document', async () => {
    const project = await generate('everything', ['--events', '*', ...QUIET]);
    const groups = Object.keys(EVENT_GROUPS);
    expect(listFiles(join(project, 'src/handlers'))).toEqual(['index.ts', ...groups.map((group) => `${group}.ts`)].sort());
    const all = groups.flatMap((group) => registeredEvents(read(project, `src/handlers/${group}.ts`)));
    expect(all).toEqual([...EVENT_TYPES]);
  });

  it('serves with node:http for --adapter node, without Express', async () => {
    const project = await generate('plain-node', ['--adapter', 'node', ...QUIET]);
    const pkg = readJson<GeneratedPackage>(join(project, 'package.json'));
    expect(read(project, 'src/app.ts')).toContain('nodeHandler({');
    expect(pkg.dependencies).not.toHaveProperty('express');
    expect(pkg.devDependencies).not.toHaveProperty('@types/express');
  });

  it('serves a Fetch-API handler through a node:http bridge for --adapter fetch, without another dependency', async () => {
    const project = await generate('fetchy', ['--adapter', 'fetch', ...QUIET]);
    const pkg = readJson<GeneratedPackage>(join(project, 'package.json'));
    expect(read(project, 'src/app.ts')).toContain('fetchHandler({');
    expect(listFiles(project)).toContain('src/fetch-bridge.ts');
    // No web framework; better-sqlite3 is the default SQLite store's.
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['acct-webhook', 'better-sqlite3', 'pino']);
  });

  it('registers fastifyWebhooks in a Fastify app for --adapter fastify, with fastify and not Express', async () => {
    const project = await generate('fast', ['--adapter', 'fastify', ...QUIET]);
    const pkg = readJson<GeneratedPackage>(join(project, 'package.json'));
    expect(read(project, 'src/app.ts')).toContain("from 'acct-webhook/fastify'");
    expect(read(project, 'src/app.ts')).toContain('app.register(fastifyWebhooks, {');
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['acct-webhook', 'better-sqlite3', 'fastify', 'pino']);
    expect(pkg.devDependencies).not.toHaveProperty('@types/express');
    expect(read(project, 'README.md')).toContain('Fastify, SQLite store');
  });

  it('routes to honoWebhooks in a Hono app on @hono/node-server for --adapter hono', async () => {
    const project = await generate('honey', ['--adapter', 'hono', ...QUIET]);
    const pkg = readJson<GeneratedPackage>(join(project, 'package.json'));
    expect(read(project, 'src/app.ts')).toContain("from 'acct-webhook/hono'");
    expect(read(project, 'src/app.ts')).toContain("app.post('/webhooks', webhooks);");
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['@hono/node-server', 'acct-webhook', 'better-sqlite3', 'hono', 'pino']);
    expect(pkg.devDependencies).not.toHaveProperty('@types/express');
  });

  it('uses memoryStore for --store memory, with no database setting', async () => {
    const project = await generate('in-memory', ['--store', 'memory', ...QUIET]);
    expect(read(project, 'src/store.ts')).toContain('return memoryStore();');
    expect(read(project, '.env.example')).not.toMatch(/WEBHOOK_DB|DATABASE_URL/);
    expect(readJson<GeneratedPackage>(join(project, 'package.json')).dependencies).not.toHaveProperty('better-sqlite3');
  });

  // acct-webhook/postgres is built in a later issue: these files are checked, not run.
  it('uses postgresStore from acct-webhook/postgres with DATABASE_URL and pg for --store postgres', async () => {
    const project = await generate('pg-receiver', ['--store', 'postgres', ...QUIET]);
    const pkg = readJson<GeneratedPackage>(join(project, 'package.json'));
    expect(read(project, 'src/store.ts')).toContain("import { postgresStore } from 'acct-webhook/postgres';");
    expect(read(project, 'src/store.ts')).toContain('postgresStore(url)');
    expect(read(project, '.env.example')).toContain('DATABASE_URL=');
    expect(pkg.dependencies).toHaveProperty('pg');
    expect(pkg.dependencies).not.toHaveProperty('better-sqlite3');
  });

  it('writes pnpm\'s build allowance and pnpm commands for --package-manager pnpm', async () => {
    const project = await generate('with-pnpm', ['--package-manager', 'pnpm', ...QUIET]);
    const pkg = readJson<GeneratedPackage>(join(project, 'package.json'));
    expect(pkg.pnpm?.onlyBuiltDependencies).toContain('better-sqlite3');
    expect(pkg).not.toHaveProperty('allowScripts');
    expect(read(project, 'README.md')).toContain('pnpm dev');
    const ci = read(project, '.github/workflows/ci.yml');
    expect(ci).toContain('- run: corepack enable\n');
    expect(ci).toContain('- run: pnpm install --frozen-lockfile\n      - run: pnpm test\n');
  });

  it('creates ./webhook-receiver when no directory is given', async () => {
    const cwd = freshDirectory();
    const run = await runGenerator(QUIET, cwd);
    expect(run.exitCode).toBe(0);
    expect(readJson<GeneratedPackage>(join(cwd, 'webhook-receiver', 'package.json')).name).toBe('webhook-receiver');
  });

  it('initialises a git repository unless --no-git', async () => {
    const cwd = freshDirectory();
    const run = await runGenerator(['with-git', '--yes', '--no-install'], cwd);
    expect(run.exitCode).toBe(0);
    expect(existsSync(join(cwd, 'with-git', '.git'))).toBe(true);
    expect(existsSync(join(cwd, 'with-git', '.gitignore'))).toBe(true);
  });

  it('writes into a non-empty directory with --force, keeping the files already there', async () => {
    const cwd = freshDirectory();
    mkdirSync(join(cwd, 'existing'));
    writeFileSync(join(cwd, 'existing', 'notes.txt'), 'mine');
    const run = await runGenerator(['existing', '--force', ...QUIET], cwd);
    expect(run.exitCode).toBe(0);
    expect(read(join(cwd, 'existing'), 'notes.txt')).toBe('mine');
    expect(listFiles(join(cwd, 'existing'))).toContain('src/server.ts');
  });
});

describe('the acct-webhook dependency', () => {
  /** The stdout lines that say how acct-webhook was written. */
  const notes = (stdout: string): string[] => stdout.split('\n').filter((line) => line.startsWith('acct-webhook is written as'));

  it('from a checkout: ^<version>, and one line says so and how to point it at a local build', async () => {
    const cwd = freshDirectory();
    const run = await runGenerator(['from-checkout', ...QUIET], cwd);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(readJson<GeneratedPackage>(join(cwd, 'from-checkout', 'package.json')).dependencies['acct-webhook']).toBe(`^${REPO_VERSION}`);
    const [note, ...others] = notes(run.stdout);
    expect(others).toEqual([]);
    expect(note).toContain(`"^${REPO_VERSION}"`);
    expect(note).toContain('npm pack');
    expect(note).toContain(`--acct-webhook file:<path to acct-webhook-${REPO_VERSION}.tgz>`);
  });

  it('--acct-webhook file:<path>: taken from the current directory, written relative to the project', async () => {
    const cwd = freshDirectory();
    mkdirSync(join(cwd, 'builds'));
    writeFileSync(join(cwd, 'builds', 'acct-webhook-9.9.9.tgz'), 'a packed build');
    const run = await runGenerator(['nested/local-build', '--acct-webhook', 'file:builds/acct-webhook-9.9.9.tgz', ...QUIET], cwd);
    expect(run.exitCode, run.stderr).toBe(0);
    const pkg = readJson<GeneratedPackage>(join(cwd, 'nested', 'local-build', 'package.json'));
    expect(pkg.dependencies['acct-webhook']).toBe('file:../../builds/acct-webhook-9.9.9.tgz');
    expect(notes(run.stdout)).toEqual(['acct-webhook is written as "file:../../builds/acct-webhook-9.9.9.tgz" in package.json (--acct-webhook).']);
  });

  it('--acct-webhook with a bare path (../build.tgz) is a local path too', async () => {
    const cwd = freshDirectory();
    writeFileSync(join(cwd, 'build.tgz'), 'a packed build');
    mkdirSync(join(cwd, 'work'));
    const run = await runGenerator(['bare', '--acct-webhook', '../build.tgz', ...QUIET], join(cwd, 'work'));
    expect(run.exitCode, run.stderr).toBe(0);
    expect(readJson<GeneratedPackage>(join(cwd, 'work', 'bare', 'package.json')).dependencies['acct-webhook']).toBe('file:../../build.tgz');
  });

  it('--acct-webhook with a registry spec (a version, a tag) writes it unchanged', async () => {
    const project = await generate('tagged', ['--acct-webhook', 'next', ...QUIET]);
    expect(readJson<GeneratedPackage>(join(project, 'package.json')).dependencies['acct-webhook']).toBe('next');
  });
});

describe('bad input: one line on stderr with a stable code, exit code 2, nothing written', () => {
  it.each([
    ['a name with capitals and a space', ['My Receiver'], 'INVALID_NAME'],
    ['a name starting with _', ['_private'], 'INVALID_NAME'],
    ['the name of a Node.js built-in', ['http'], 'INVALID_NAME'],
    ['an unknown event type', ['rx', '--events', 'invoice.paid,invoice.payed'], 'UNKNOWN_EVENT_TYPE'],
    ['an unknown event group', ['rx', '--events', 'refund.*'], 'UNKNOWN_EVENT_TYPE'],
    ['an empty event list', ['rx', '--events', ','], 'UNKNOWN_EVENT_TYPE'],
    ['an unknown adapter', ['rx', '--adapter', 'koa'], 'UNKNOWN_OPTION_VALUE'],
    ['an unknown store', ['rx', '--store', 'mongodb'], 'UNKNOWN_OPTION_VALUE'],
    ['an unknown package manager', ['rx', '--package-manager', 'bun'], 'UNKNOWN_OPTION_VALUE'],
    ['an unknown flag (templates are chosen with --adapter)', ['rx', '--template', 'koa'], 'INVALID_ARGUMENTS'],
    ['a flag without its value', ['rx', '--events'], 'INVALID_ARGUMENTS'],
    ['two directories', ['one', 'two'], 'INVALID_ARGUMENTS'],
    ['a local acct-webhook that does not exist', ['rx', '--acct-webhook', 'file:../acct-webhook-9.9.9.tgz'], 'INVALID_ARGUMENTS'],
    ['an empty acct-webhook spec', ['rx', '--acct-webhook', ' '], 'INVALID_ARGUMENTS'],
  ])('%s', async (_case, args, code) => {
    const cwd = freshDirectory();
    const run = await runGenerator(['--no-install', '--no-git', ...args], cwd);
    expect(run.exitCode).toBe(2);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(`[${code}]`);
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(listFiles(cwd)).toEqual([]);
  });

  it('refuses a directory that is not empty', async () => {
    const cwd = freshDirectory();
    mkdirSync(join(cwd, 'taken'));
    writeFileSync(join(cwd, 'taken', 'package.json'), '{}');
    const run = await runGenerator(['taken', ...QUIET], cwd);
    expect(run.exitCode).toBe(2);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('[DIRECTORY_NOT_EMPTY]');
    expect(listFiles(cwd)).toEqual(['taken/package.json']);
  });

  it('refuses a file where the directory should go', async () => {
    const cwd = freshDirectory();
    writeFileSync(join(cwd, 'rx'), 'a file');
    const run = await runGenerator(['rx', ...QUIET], cwd);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('[NOT_A_DIRECTORY]');
    expect(read(cwd, 'rx')).toBe('a file');
  });
});

describe('a checkout that was not built', () => {
  it('the bin says to run npm run build, in one line, and exits 1', async () => {
    const checkout = join(freshDirectory(), 'create-acct-webhook');
    mkdirSync(join(checkout, 'bin'), { recursive: true });
    copyFileSync(join(CREATE_PACKAGE, 'package.json'), join(checkout, 'package.json'));
    copyFileSync(LAUNCHER, join(checkout, 'bin', 'create-acct-webhook.js'));
    const run = await runProcess(process.execPath, [join(checkout, 'bin', 'create-acct-webhook.js'), '--version'], freshDirectory());
    expect(run).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: 'create-acct-webhook: dist/index.js is missing: this is a checkout that was not built; run npm run build at its root first\n',
    });
  });
});

describe('a package manager that is not installed', () => {
  it.each(['pnpm', 'yarn', 'npm'])('--package-manager %s without it on PATH: "%s is not installed" in one line, exit 2, nothing written', async (manager) => {
    const cwd = freshDirectory();
    // PATH holds a directory with none of them; node itself is started by its absolute path.
    const run = await runGenerator(['rx', '--yes', '--package-manager', manager], cwd, childEnvironment({ PATH: freshDirectory() }));
    expect(run.stderr).toBe(
      `create-acct-webhook: ${manager} is not installed (no ${manager} on PATH): install it, choose another with --package-manager, ` +
        'or skip the install with --no-install [PACKAGE_MANAGER_NOT_FOUND]\n',
    );
    expect(run.exitCode).toBe(2);
    expect(existsSync(join(cwd, 'rx'))).toBe(false);
  });

  it('--no-install does not need it', async () => {
    const cwd = freshDirectory();
    const run = await runGenerator(['rx', '--yes', '--package-manager', 'pnpm', '--no-install', '--no-git'], cwd, childEnvironment({ PATH: freshDirectory() }));
    expect(run.exitCode, run.stderr).toBe(0);
    expect(listFiles(join(cwd, 'rx'))).toContain('src/server.ts');
  });
});

describe('failures after writing', () => {
  it('keeps the project and exits 1 with INSTALL_FAILED when the package manager fails', async () => {
    const cwd = freshDirectory();
    // An npm that fails at once, and no git, on PATH; node itself is started by its absolute path.
    const bin = freshDirectory();
    writeFileSync(join(bin, 'npm'), '#!/bin/sh\necho "npm ERR! the registry is away" >&2\nexit 1\n', { mode: 0o755 });
    const run = await runGenerator(['npm-fails', '--yes', '--package-manager', 'npm'], cwd, childEnvironment({ PATH: bin }));
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/^npm ERR! the registry is away\ncreate-acct-webhook: npm install failed \(1\); the project is written: run npm install in .+ to finish \[INSTALL_FAILED\]\n$/);
    expect(listFiles(join(cwd, 'npm-fails'))).toContain('src/server.ts');
  });
});
