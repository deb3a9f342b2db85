import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import pg from 'pg';
import { Dispatcher } from '../../src/dispatcher.js';
import { createTestEvent } from '../../src/testing/index.js';
import { POSTGRES_URL } from '../helpers/postgres.js';
import { childEnvironment, listFiles, provideSqliteBinding, readJson, runGenerator, runProcess, temporaryDirectory, waitFor } from '../scaffold/helpers.js';

const ADAPTERS = ['express', 'fastify', 'hono', 'node', 'fetch'] as const;
/**
 * Besides its adapter, each project varies something else whose code must compile and run: the
 * Express one handles all 18 events (so every generated handler is type-checked), the Fetch and
 * Hono ones use the in-memory store. The others are the default otherwise.
 */
const EXTRA_FLAGS: Record<(typeof ADAPTERS)[number], string[]> = {
  express: ['--events', '*'],
  fastify: [],
  hono: ['--store', 'memory'],
  node: [],
  fetch: ['--store', 'memory'],
};
/** The projects whose server is started and delivered to by the Dispatcher (the web frameworks). */
const STARTED = ['express', 'fastify', 'hono'] as const;
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund'];
/**
 * One more project on the PostgreSQL store: its server needs a database, but its own tests use
 * memoryStore(), so `npm test` checks that its store module compiles against acct-webhook/postgres
 * (with pg installed, without @types/pg) and that the rest runs as in the others.
 */
const POSTGRES_PROJECT = 'postgres-receiver';
const POSTGRES_FLAGS = ['--adapter', 'node', '--store', 'postgres'];

interface Manifest {
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/**
 * The generated projects sit side by side in one folder whose node_modules they share:
 * one install (the union of what their package.json files declare, acct-webhook and
 * create-acct-webhook from their packed tarballs) instead of one each. Node, tsc and vitest look for packages in parent folders,
 * so each project's own `npm test` runs exactly as it would with its own node_modules.
 */
const workspace = temporaryDirectory('scaffold-projects');
const projectOf = (adapter: string): string => join(workspace.path, `${adapter}-receiver`);

function writeSharedManifest(tarball: string, createTarball: string): void {
  const dependencies: Record<string, string> = {};
  for (const project of [...ADAPTERS.map(projectOf), join(workspace.path, POSTGRES_PROJECT)]) {
    const manifest = readJson<Manifest>(join(project, 'package.json'));
    Object.assign(dependencies, manifest.dependencies, manifest.devDependencies);
  }
  dependencies['acct-webhook'] = `file:${tarball}`;
  // The scaffolder's own package, as packed: its bin is compared with the repository's below.
  dependencies['create-acct-webhook'] = `file:${createTarball}`;
  writeFileSync(join(workspace.path, 'package.json'), JSON.stringify({ name: 'shared', private: true, dependencies }, null, 2));
}

beforeAll(async () => {
  for (const adapter of ADAPTERS) {
    const run = await runGenerator([`${adapter}-receiver`, '--adapter', adapter, ...EXTRA_FLAGS[adapter], '--yes', '--no-install', '--no-git'], workspace.path);
    expect(run.exitCode, run.stderr).toBe(0);
  }
  const postgres = await runGenerator([POSTGRES_PROJECT, ...POSTGRES_FLAGS, '--yes', '--no-install', '--no-git'], workspace.path);
  expect(postgres.exitCode, postgres.stderr).toBe(0);
  writeSharedManifest(inject('tarball'), inject('createTarball'));
  // Install scripts are skipped: esbuild works without its optional check, better-sqlite3 is provided below.
  const install = await runProcess('npm', ['install', '--ignore-scripts', ...NPM_FLAGS], workspace.path);
  expect(install.exitCode, install.stderr).toBe(0);
  await provideSqliteBinding(workspace.path);
});

afterAll(() => workspace.remove());

describe('a generated project', () => {
  it.each(ADAPTERS)('(%s) type-checks and passes its own npm test', async (adapter) => {
    const run = await runProcess('npm', ['test'], projectOf(adapter));
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    // Its seven tests ran: signed event handled, bad signature 401, duplicate once, stale timestamp
    // 401; /health and /ready answer 200, /ready 503 with a failing store, neither takes a POST.
    expect(run.stdout).toMatch(/Tests\s+7 passed \(7\)/);
  });

  it('(node:http, PostgreSQL store) type-checks against acct-webhook/postgres and passes its own npm test', async () => {
    const project = join(workspace.path, POSTGRES_PROJECT);
    expect(readFileSync(join(project, 'src', 'store.ts'), 'utf8')).toContain("from 'acct-webhook/postgres'");
    expect(readJson<Manifest>(join(project, 'package.json')).dependencies).toHaveProperty('pg');
    const run = await runProcess('npm', ['test'], project);
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/Tests\s+7 passed \(7\)/);
  });
});

describe('the packed package', () => {
  it('create-acct-webhook runs from node_modules/.bin and writes what the repository writes, dotfiles included', async () => {
    const installedBin = join(workspace.path, 'node_modules', '.bin', 'create-acct-webhook');
    const args = ['twin', '--events', 'customer.*', '--store', 'postgres', '--yes', '--no-install', '--no-git'];
    const [fromPackage, fromRepository] = [join(workspace.path, 'from-package'), join(workspace.path, 'from-repository')];
    mkdirSync(fromPackage);
    mkdirSync(fromRepository);

    const packed = await runProcess(installedBin, args, fromPackage);
    const repository = await runGenerator(args, fromRepository);

    expect(packed.exitCode, packed.stderr).toBe(0);
    expect(repository.exitCode, repository.stderr).toBe(0);
    // Installed from a tarball, not a registry: it says how acct-webhook was written.
    expect(packed.stdout).toContain('acct-webhook is written as');
    const files = listFiles(join(fromRepository, 'twin'));
    expect(files).toContain('.gitignore');
    expect(listFiles(join(fromPackage, 'twin'))).toEqual(files);
    for (const file of files) {
      expect(readFileSync(join(fromPackage, 'twin', file), 'utf8'), file).toBe(readFileSync(join(fromRepository, 'twin', file), 'utf8'));
    }
  });
});

/** One stdout line of the generated server: pino writes JSON; anything else is kept as its text. */
function parseLogLine(line: string): Record<string, unknown> {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { msg: line };
  }
}

/** The generated server as a child process, built and started the way `npm run build` and `npm start` do, on a free port. */
class GeneratedServer {
  /** Its log, one parsed line each. */
  readonly lines: Record<string, unknown>[] = [];
  private stderr = '';

  private constructor(readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on('line', (line) => this.lines.push(parseLogLine(line)));
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
  }

  static async start(project: string, env: NodeJS.ProcessEnv): Promise<GeneratedServer> {
    const build = await runProcess('npm', ['run', 'build'], project);
    expect(build.exitCode, `${build.stdout}\n${build.stderr}`).toBe(0);
    const scripts = readJson<{ scripts: Record<string, string> }>(join(project, 'package.json')).scripts;
    expect(scripts.start).toBe('node --enable-source-maps dist/server.js');
    // What npm start runs: compiled JavaScript, no TypeScript loader.
    const child = spawn(process.execPath, ['--enable-source-maps', 'dist/server.js'], { cwd: project, env: childEnvironment(env) });
    const server = new GeneratedServer(child);
    await waitFor(() => server.port !== undefined || child.exitCode !== null, 'the generated server to listen');
    if (server.port === undefined) throw new Error(`the generated server did not start: ${server.stderr}`);
    return server;
  }

  /** From its "receiving webhooks at …" line (PORT=0 lets the system pick a free one). */
  get port(): number | undefined {
    const port = this.lines.find((line) => typeof line.port === 'number')?.port;
    return typeof port === 'number' ? port : undefined;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/webhooks`;
  }

  /** The address it listens on, from the same line (HOST, 127.0.0.1 when not set). */
  get host(): unknown {
    return this.lines.find((line) => typeof line.port === 'number')?.host;
  }

  /** GET `path` on it: the status and the JSON body. */
  async get(path: string): Promise<[number, unknown]> {
    const response = await fetch(`http://127.0.0.1:${this.port}${path}`);
    return [response.status, await response.json()];
  }

  linesWith(message: string): Record<string, unknown>[] {
    return this.lines.filter((line) => line.msg === message);
  }

  /** SIGTERM, the way an orchestrator stops it; resolves with the exit code. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    const exited = new Promise<number | null>((resolve) => this.child.once('exit', (code) => resolve(code)));
    this.child.kill('SIGTERM');
    return exited;
  }
}

describe.each(STARTED)('the generated %s server', (adapter) => {
  let dispatcher: Dispatcher;
  let server: GeneratedServer | undefined;

  afterAll(async () => {
    await server?.stop();
    await dispatcher.close();
  });

  it('handles an event the Dispatcher delivers, logs its key fields, and runs nothing for a redelivery', async () => {
    dispatcher = new Dispatcher({ database: join(workspace.path, `dispatch-${adapter}.db`), allowInsecureUrls: true, logger: false });
    // The secret is issued when the webhook is registered; the URL is known once the server listens.
    const webhook = await dispatcher.webhooks.create({ url: 'http://127.0.0.1:9/webhooks', events: ['invoice.*'] });
    server = await GeneratedServer.start(projectOf(adapter), {
      WEBHOOK_SECRET: webhook.secret,
      PORT: '0',
      WEBHOOK_DB: join(workspace.path, `events-${adapter}.db`),
    });
    await dispatcher.webhooks.update(webhook.id, { url: server.url });

    const event = await dispatcher.emit(createTestEvent('invoice.paid'));
    await dispatcher.runDue();

    const [delivery] = await dispatcher.deliveries.list();
    expect(delivery).toMatchObject({ event_id: event.id, status: 'delivered' });
    const running = server;
    await waitFor(() => running.linesWith('invoice paid').length > 0, "the invoice.paid handler's log line");
    expect(running.linesWith('invoice paid')).toEqual([
      expect.objectContaining({
        eventId: event.id,
        number: event.data.object.number,
        amount: event.data.object.amount,
        currency: event.data.object.currency,
        paid_at: event.data.object.paid_at,
      }),
    ]);

    // The platform delivers the same event again: acknowledged as a duplicate, the handler does not run.
    const again = await dispatcher.deliveries.retry(delivery!.id);
    expect(again.attempt.response_status).toBe(200);
    expect(JSON.parse(again.attempt.response_body ?? '{}')).toMatchObject({ id: event.id, duplicate: true });
    await waitFor(() => running.lines.some((line) => line.outcome === 'duplicate' && line.eventId === event.id), 'the duplicate delivery line');
    expect(running.linesWith('invoice paid')).toHaveLength(1);

    // SIGTERM: the server stops gracefully and exits 0.
    expect(await running.stop()).toBe(0);
    expect(running.linesWith('stopped')).toHaveLength(1);
  });
});

describe.each(ADAPTERS)('the generated %s server, built', (adapter) => {
  it('listens on 127.0.0.1 by default and answers GET /health and GET /ready', async () => {
    const server = await GeneratedServer.start(projectOf(adapter), {
      WEBHOOK_SECRET: 'whsec_health_check',
      PORT: '0',
      WEBHOOK_DB: join(workspace.path, `health-${adapter}.db`),
    });
    try {
      expect(server.host).toBe('127.0.0.1');
      expect(await server.get('/health')).toEqual([200, { status: 'ok' }]);
      expect(await server.get('/ready')).toEqual([200, { status: 'ok' }]);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});

/**
 * The generated server on the PostgreSQL store opens the store before it listens
 * (`receiver.ready()`): a DATABASE_URL that cannot be used stops the start with one line.
 */
describe('the generated PostgreSQL server at start', () => {
  const project = join(workspace.path, POSTGRES_PROJECT);
  const environment = (databaseUrl: string) => childEnvironment({ WEBHOOK_SECRET: 'whsec_start_check', PORT: '0', DATABASE_URL: databaseUrl });
  const start = (databaseUrl: string) => runProcess(process.execPath, ['--import', 'tsx', 'src/server.ts'], project, environment(databaseUrl));

  it('stops with one line and exit 1 when nothing answers at DATABASE_URL, before it listens', async () => {
    const run = await start('postgres://postgres@127.0.0.1:1/app');
    expect(run.stderr).toBe('Cannot start: the idempotency store cannot be used: connect ECONNREFUSED 127.0.0.1:1\n');
    expect(run.exitCode).toBe(1);
    expect(run.stdout).not.toContain('receiving webhooks');
  });

  describe('with the PostgreSQL server', () => {
    const admin = () => new pg.Client({ connectionString: POSTGRES_URL });
    const database = `acct_scaffold_${process.pid}`;
    const urlOf = (name: string) => Object.assign(new URL(POSTGRES_URL), { pathname: `/${name}` }).toString();
    afterAll(async () => {
      const client = admin();
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await client.end();
    });

    it('stops with one line and exit 1 when the database does not exist', async () => {
      const run = await start(urlOf('acct_webhook_no_such_database'));
      expect(run.stderr).toBe('Cannot start: the idempotency store cannot be used: database "acct_webhook_no_such_database" does not exist\n');
      expect(run.exitCode).toBe(1);
      expect(run.stdout).not.toContain('receiving webhooks');
    });

    it('creates its tables and listens when the database is there; SIGTERM stops it with exit 0', async () => {
      const client = admin();
      await client.connect();
      await client.query(`CREATE DATABASE ${database}`);
      await client.end();
      const server = await GeneratedServer.start(project, { WEBHOOK_SECRET: 'whsec_start_check', PORT: '0', DATABASE_URL: urlOf(database) });
      expect(server.port).toBeGreaterThan(0);
      // Ready: the store answers a query on the server.
      expect(await server.get('/ready')).toEqual([200, { status: 'ok' }]);
      expect(await server.stop()).toBe(0);
      const check = new pg.Client({ connectionString: urlOf(database) });
      await check.connect();
      const tables = await check.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name = 'acct_webhook_events'");
      await check.end();
      expect(tables.rows).toHaveLength(1);
    });
  });
});
