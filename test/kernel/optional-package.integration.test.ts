import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_SQLITE_VERSIONS, nodeSqliteSupport } from '../../src/stores/sqlite/node-sqlite.js';
import { root } from '../helpers/dist.js';
import { childEnvironment, waitFor } from '../scaffold/helpers.js';

/*
 * The built package installed into a project where its optional packages are absent — really
 * absent: Node's own resolution looks for them and finds nothing. Each project holds a copy of
 * the package (package.json, bin/, dist/) in node_modules/acct-webhook and links to the
 * repository's copies of its dependencies, and of the optional packages a case gives it.
 */

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
const repositoryModules = join(root, 'node_modules');
const projects: string[] = [];

/** A project with acct-webhook and its dependencies, plus `linked` packages from the repository. */
function project(linked: readonly string[] = []): string {
  const directory = mkdtempSync(join(tmpdir(), 'acct-webhook-optional-'));
  projects.push(directory);
  const installed = join(directory, 'node_modules', 'acct-webhook');
  mkdirSync(installed, { recursive: true });
  cpSync(join(root, 'package.json'), join(installed, 'package.json'));
  cpSync(join(root, 'bin'), join(installed, 'bin'), { recursive: true });
  cpSync(join(root, 'dist'), join(installed, 'dist'), { recursive: true, filter: (source) => !source.endsWith('.map') });
  for (const name of [...Object.keys(manifest.dependencies), ...linked]) link(directory, name);
  writeFileSync(join(directory, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  return directory;
}

function link(directory: string, name: string): void {
  const target = join(directory, 'node_modules', name);
  mkdirSync(dirname(target), { recursive: true });
  symlinkSync(join(repositoryModules, name), target, 'dir');
}

/** Whether `name` can be found from the project's copy of the package, as Node looks for it. */
function resolvable(directory: string, name: string): boolean {
  try {
    createRequire(join(directory, 'node_modules', 'acct-webhook', 'dist', 'index.js')).resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}

interface Run {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/** `node <args>` in the project, to its end. */
function node(directory: string, args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: directory, env: childEnvironment({ NODE_PATH: '' }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (exitCode) => resolve({ exitCode, stdout, stderr }));
  });
}

const cli = (directory: string, args: readonly string[]) => node(directory, [join('node_modules', 'acct-webhook', 'bin', 'acct-webhook.js'), ...args]);

/** A file that starts like every SQLite database, so the CLI opens it with the driver. */
function sqliteLookingFile(directory: string): string {
  const file = join(directory, 'events.db');
  writeFileSync(file, Buffer.concat([Buffer.from('SQLite format 3\u0000', 'latin1'), Buffer.alloc(4080)]));
  return file;
}

const UNREACHABLE_PG = 'postgres://postgres@127.0.0.1:1/nothing';

/** Whether this Node.js has node:sqlite, which a SQLite store takes when better-sqlite3 is missing or does not load. */
const HAS_NODE_SQLITE = nodeSqliteSupport().module !== undefined;
/** Why a SQLite store is refused where better-sqlite3 is installed but its native module was never built, and node:sqlite is missing. */
const UNBUILT_REASON = /^needs better-sqlite3, whose native module does not load on Node\.js v[\d.]+ \(.+\): rebuild it \(npm rebuild better-sqlite3\), or a Node\.js with node:sqlite \(.+\); or use memoryStore\(\) or postgresStore\(\)$/;

afterAll(() => {
  for (const directory of projects) rmSync(directory, { recursive: true, force: true });
});

describe('installed without any optional package (no pg, better-sqlite3, express or OpenTelemetry)', () => {
  let directory: string;
  beforeAll(() => {
    directory = project();
    for (const name of ['pg', 'better-sqlite3', 'express', '@opentelemetry/api']) expect(resolvable(directory, name), name).toBe(false);
  });

  it('inbox list --pg: one line saying to install pg, exit 2 — as for a SQLite store without better-sqlite3', async () => {
    const pg = await cli(directory, ['inbox', 'list', '--pg', UNREACHABLE_PG]);
    expect(pg.stderr).toBe('acct-webhook inbox list: PostgreSQL storage needs the pg package, which is not installed: npm install pg [INVALID_CONFIGURATION]\n');
    expect(pg.exitCode).toBe(2);

    const sqlite = await cli(directory, ['inbox', 'list', '--db', sqliteLookingFile(directory)]);
    if (HAS_NODE_SQLITE) {
      // Where Node.js has node:sqlite, a missing better-sqlite3 is no error: the store runs on node:sqlite.
      expect(sqlite.stderr).not.toContain('better-sqlite3');
    } else {
      expect(sqlite.stderr).toBe(
        'acct-webhook inbox list: SQLite storage needs the better-sqlite3 package, which is not installed (npm install better-sqlite3), ' +
          `or a Node.js with node:sqlite (${NODE_SQLITE_VERSIONS}); or use memoryStore() or postgresStore() [INVALID_CONFIGURATION]\n`,
      );
      expect(sqlite.exitCode).toBe(pg.exitCode);
    }
  });

  // Every entry point loads; what needs a missing package says so when it is created; the Express
  // adapter (typed on node:http) and a meter (any object with the methods) need neither package.
  const program = (load: (specifier: string) => string) => `
    const { createServer } = ${load('node:http')};
    const { memoryStore, webhookHandler, createReceiver, sqliteStore } = ${load('acct-webhook')};
    const { postgresStore, postgresDispatchStore } = ${load('acct-webhook/postgres')};
    const { Dispatcher } = ${load('acct-webhook/dispatcher')};
    const { dashboard } = ${load('acct-webhook/dashboard')};
    const { createTestEvent, signedHeaders } = ${load('acct-webhook/testing')};
    const secret = 'whsec_withoutOptionalPackages';
    function refusal(create) {
      try { create(); return null; } catch (error) { return { name: error.constructor.name, code: error.code, option: error.details.option, message: error.message }; }
    }
    async function serveExpressAdapter() {
      const handler = webhookHandler({ secret, store: memoryStore(), logger: false });
      const server = createServer((req, res) => handler(req, res, () => res.writeHead(404).end()));
      await new Promise((listening) => server.listen(0, '127.0.0.1', listening));
      const body = JSON.stringify(createTestEvent('invoice.paid'));
      const response = await fetch('http://127.0.0.1:' + server.address().port + '/webhooks', { method: 'POST', body, headers: signedHeaders(body, secret) });
      await new Promise((closed) => server.close(closed));
      return response.status;
    }
    async function measure() {
      const counted = [];
      const meter = {
        createCounter: (name) => ({ add: (value, labels) => counted.push([name, labels.outcome]) }),
        createHistogram: () => ({ record: () => undefined }),
        createObservableGauge: () => ({}),
        addBatchObservableCallback: () => undefined,
        removeBatchObservableCallback: () => undefined,
      };
      const receiver = createReceiver({ secret, store: memoryStore(), logger: false, metrics: { meter } });
      const body = JSON.stringify(createTestEvent('invoice.paid'));
      const answer = await receiver.receive({ rawBody: body, headers: signedHeaders(body, secret), method: 'POST' });
      await receiver.close();
      return { status: answer.status, counted: counted.length > 0 };
    }
    async function main() {
      const pool = { query: async () => ({ rows: [], rowCount: 0 }), connect: async () => { throw new Error('not used'); }, end: async () => undefined };
      console.log(JSON.stringify({
        postgresStore: refusal(() => postgresStore('${UNREACHABLE_PG}')),
        postgresDispatchStore: refusal(() => postgresDispatchStore('${UNREACHABLE_PG}')),
        postgresStoreOnYourPool: refusal(() => postgresStore(pool)),
        sqliteStore: refusal(() => sqliteStore('library-events.db')),
        dispatcher: refusal(() => new Dispatcher({ logger: false })),
        dashboard: typeof dashboard({ receiver: createReceiver({ secret, store: memoryStore(), logger: false }), authorize: () => true }),
        expressAdapter: await serveExpressAdapter(),
        metrics: await measure(),
      }));
    }
    main().catch((error) => { console.error(error); process.exit(1); });
  `;
  const needs = (name: string, option: string) => ({ name: 'ConfigurationError', code: 'INVALID_CONFIGURATION', option, message: expect.stringContaining(`npm install ${name}`) });

  it.each([
    ['ES modules', 'without-optional.mjs', (specifier: string) => `await import('${specifier}')`],
    ['CommonJS', 'without-optional.cjs', (specifier: string) => `require('${specifier}')`],
  ])('the library (%s): a ConfigurationError naming the package where one is needed, and everything else works', async (_kind, script, load) => {
    const source = script.endsWith('.cjs') ? `(async () => {${program(load)}})();` : program(load);
    writeFileSync(join(directory, script), source);
    const run = await node(directory, [script]);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      postgresStore: needs('pg', 'poolOrUrl'),
      postgresDispatchStore: needs('pg', 'poolOrUrl'),
      postgresStoreOnYourPool: null,
      // Where Node.js has node:sqlite, the SQLite stores run on it instead.
      sqliteStore: HAS_NODE_SQLITE ? null : needs('better-sqlite3', 'database'),
      dispatcher: HAS_NODE_SQLITE ? null : needs('better-sqlite3', 'database'),
      dashboard: 'function',
      expressAdapter: 200,
      metrics: { status: 200, counted: true },
    });
  });
});

const OPENTELEMETRY = ['@opentelemetry/api', '@opentelemetry/sdk-metrics', '@opentelemetry/exporter-prometheus'];
/** better-sqlite3 and what it loads its native module with. */
const SQLITE_DRIVER = ['better-sqlite3', 'bindings', 'file-uri-to-path'];

describe('dispatcher run --metrics-port: the OpenTelemetry SDK and its exporter are optional peers, not bundled', () => {
  it('without them: one line naming every missing package in one install command, exit 2', async () => {
    const directory = project(SQLITE_DRIVER);
    for (const name of OPENTELEMETRY) expect(resolvable(directory, name), name).toBe(false);
    const run = await cli(directory, ['dispatcher', 'run', '--metrics-port', '0', '--db', 'dispatch.db']);
    expect(run.stderr).toBe(
      'acct-webhook dispatcher run: --metrics-port needs the @opentelemetry/sdk-metrics, @opentelemetry/exporter-prometheus and @opentelemetry/api packages, ' +
        'which are not installed: npm install @opentelemetry/sdk-metrics @opentelemetry/exporter-prometheus @opentelemetry/api [INVALID_CONFIGURATION]\n',
    );
    expect(run.exitCode).toBe(2);
  });

  it('with them installed beside the package: serves Prometheus metrics', async () => {
    // With what they import themselves (core, resources, semantic conventions): all of the
    // repository's @opentelemetry/ packages.
    const openTelemetry = readdirSync(join(repositoryModules, '@opentelemetry')).map((name) => `@opentelemetry/${name}`);
    expect(openTelemetry).toEqual(expect.arrayContaining(OPENTELEMETRY));
    const directory = project([...SQLITE_DRIVER, ...openTelemetry]);
    const added = await cli(directory, ['dispatcher', 'webhooks', 'add', '--url', 'http://127.0.0.1:9/webhooks', '--allow-insecure-urls', '--db', 'dispatch.db']);
    expect(added.exitCode, added.stderr).toBe(0);

    const child = spawn(process.execPath, [join('node_modules', 'acct-webhook', 'bin', 'acct-webhook.js'), 'dispatcher', 'run', '--metrics-port', '0', '--db', 'dispatch.db', '--allow-insecure-urls'], {
      cwd: directory,
      env: childEnvironment({ NODE_PATH: '' }),
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    try {
      await waitFor(() => /Metrics \(Prometheus\): (\S+)/.test(stderr) || child.exitCode !== null, `the metrics URL; got: ${stderr}`);
      const url = /Metrics \(Prometheus\): (\S+)/.exec(stderr)?.[1];
      expect(url, stderr).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const response = await fetch(url!);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/plain');
      expect(await response.text()).toMatch(/^# HELP acct_webhook_/m);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});

describe('installed with a better-sqlite3 whose native module was never built', () => {
  let directory: string;
  beforeAll(() => {
    directory = project(['bindings', 'file-uri-to-path']);
    // What an install whose build script did not run leaves: the JavaScript, no build/.
    const copy = join(directory, 'node_modules', 'better-sqlite3');
    for (const part of ['package.json', 'lib']) cpSync(join(repositoryModules, 'better-sqlite3', part), join(copy, part), { recursive: true });
  });

  it('the library: a ConfigurationError saying the package cannot be loaded and how to repair it', async () => {
    writeFileSync(
      join(directory, 'unbuilt.mjs'),
      `import { sqliteStore } from 'acct-webhook';
       try { sqliteStore('events.db'); console.log('opened'); } catch (error) { console.log(JSON.stringify({ code: error.code, option: error.details.option, reason: error.details.reason })); }`,
    );
    const run = await node(directory, ['unbuilt.mjs']);
    // Where Node.js has node:sqlite the store opens on it instead.
    if (HAS_NODE_SQLITE) expect(run.stdout).toBe('opened\n');
    else expect(JSON.parse(run.stdout)).toEqual({ code: 'INVALID_CONFIGURATION', option: 'database', reason: expect.stringMatching(UNBUILT_REASON) });
  });

  it("the library, asked for better-sqlite3 by name: a ConfigurationError saying its native module does not load and how to rebuild it", async () => {
    writeFileSync(
      join(directory, 'unbuilt-by-name.mjs'),
      `import { sqliteStore } from 'acct-webhook';
       try { sqliteStore('events.db', { driver: 'better-sqlite3' }); console.log('opened'); } catch (error) { console.log(JSON.stringify({ code: error.code, option: error.details.option, reason: error.details.reason })); }`,
    );
    const run = await node(directory, ['unbuilt-by-name.mjs']);
    expect(JSON.parse(run.stdout)).toEqual({
      code: 'INVALID_CONFIGURATION',
      option: 'driver',
      reason: expect.stringMatching(/^needs better-sqlite3, whose native module does not load on Node\.js v[\d.]+ \(.+\): rebuild it \(npm rebuild better-sqlite3\)$/),
    });
  });

  it('the CLI: one line with the same advice, exit 2', async () => {
    const run = await cli(directory, ['inbox', 'list', '--db', sqliteLookingFile(directory)]);
    if (HAS_NODE_SQLITE) {
      expect(run.stderr).not.toContain('better-sqlite3');
    } else {
      expect(run.stderr).toMatch(new RegExp(`^acct-webhook inbox list: SQLite storage ${UNBUILT_REASON.source.slice(1, -1)} \\[INVALID_CONFIGURATION\\]\\n$`));
      expect(run.exitCode).toBe(2);
    }
  });
});
