import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EVENT_TYPES } from '../../src/events/catalog.js';
import { createTestEvent, signedRequest } from '../../src/testing/test-events.js';
import { useTestDatabase } from '../helpers/postgres.js';
import { OUTCOME_TIMEOUT_MS } from '../helpers/patience.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..', '..');
const FIXTURE = join(root, 'test', 'fixtures', 'runtimes', 'fetch-receiver.mjs');
const SECRET = 'whsec_bunAndDenoRuntimes0000000000000';

/**
 * The runtimes, from the npm packages `bun` and `deno` (devDependencies: their binaries come from
 * the registry's platform packages, nothing is downloaded from elsewhere). Deno gets the
 * permissions a receiver needs and no more: the network on 127.0.0.1, the project's files, the
 * environment and the system information pg asks for (docs/runtimes.md#deno).
 */
const RUNTIMES = [
  { name: 'bun', version: /^bun 1\./, command: [join(root, 'node_modules', '.bin', 'bun'), 'run'] },
  {
    name: 'deno',
    version: /^deno 2\./,
    command: [join(root, 'node_modules', '.bin', 'deno'), 'run', '--allow-net=127.0.0.1', '--allow-read=.', '--allow-write=.', '--allow-env', '--allow-sys'],
  },
];

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** The packed package in a project of its own, as a Bun or Deno user installs it (package.json + node_modules). */
let project: string;

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), 'acct-webhook-runtimes-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'runtimes', private: true, type: 'module' }));
  // better-sqlite3 is installed but not built (--ignore-scripts): neither runtime could load it
  // anyway (Bun refuses it, Deno loads only Node-API addons), so the SQLite store must do without.
  await run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', inject('tarball'), 'pg@8'], { cwd: project, timeout: OUTCOME_TIMEOUT_MS });
  copyFileSync(FIXTURE, join(project, 'fetch-receiver.mjs'));
});

afterAll(() => rmSync(project, { recursive: true, force: true }));

/** A receiver process on one runtime, in `cwd`. */
class RuntimeReceiver {
  private constructor(
    readonly child: ChildProcess,
    readonly url: string,
    readonly runtime: string,
    private readonly stderr: () => string,
  ) {}

  static async start(command: string[], args: string[], cwd = project): Promise<RuntimeReceiver> {
    const child = spawn(command[0]!, [...command.slice(1), 'fetch-receiver.mjs', SECRET, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`${command[0]} exited with ${code} before listening: ${stderr}`)));
    });
    const { port, runtime } = JSON.parse(line) as { port: number; runtime: string };
    return new RuntimeReceiver(child, `http://127.0.0.1:${port}`, runtime, () => stderr);
  }

  async post(body: string, headers: Record<string, string>): Promise<Answer> {
    const response = await fetch(`${this.url}/webhooks`, { method: 'POST', body, headers });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  /** Handler runs per event id, once at least `atLeast` runs happened. */
  async runs(atLeast: number): Promise<Record<string, number>> {
    const response = await fetch(`${this.url}/runs?atLeast=${atLeast}`);
    return ((await response.json()) as { runs: Record<string, number> }).runs;
  }

  /** Asks the receiver to stop and close its store; resolves with the exit code once the process ended by itself. */
  async stop(): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => this.child.once('exit', (code) => resolve(code)));
    await fetch(`${this.url}/stop`, { method: 'POST' });
    return exited;
  }

  get errors(): string {
    return this.stderr();
  }
}

/** A signed delivery of a fresh invoice.paid event. */
function delivery(): { id: string; body: string; headers: Record<string, string> } {
  const event = createTestEvent('invoice.paid');
  const { body, headers } = signedRequest(event, SECRET);
  return { id: event.id, body, headers: { ...headers } };
}

describe.each(RUNTIMES)('fetchHandler on $name', ({ name, command, version }) => {
  it('with memoryStore: a signed delivery runs the handler once, a redelivery is a duplicate, a tampered body 401, an oversized one 413', async () => {
    const receiver = await RuntimeReceiver.start(command, ['memory']);
    try {
      expect(receiver.runtime).toMatch(version);
      const { id, body, headers } = delivery();
      expect(await receiver.post(body, headers)).toEqual({ status: 200, body: { received: true, id, type: 'invoice.paid', duplicate: false } });
      expect(await receiver.post(body, headers)).toEqual({ status: 200, body: { received: true, id, type: 'invoice.paid', duplicate: true } });
      expect(await receiver.runs(1)).toEqual({ [id]: 1 });

      const tampered = await receiver.post(body.replace('"invoice.paid"', '"invoice.sent"'), headers);
      expect(tampered.status).toBe(401);
      expect(tampered.body).toEqual({ error: { code: 'SIGNATURE_MISMATCH', message: expect.any(String), details: expect.anything() } });

      const oversized = delivery();
      const big = JSON.stringify({ ...(JSON.parse(oversized.body) as object), padding: 'x'.repeat(8192) });
      const tooLarge = await receiver.post(big, signedRequest(JSON.parse(big) as object, SECRET).headers);
      expect(tooLarge.status).toBe(413);
      expect((tooLarge.body.error as { code: string }).code).toBe('PAYLOAD_TOO_LARGE');
      expect(await receiver.runs(1)).toEqual({ [id]: 1 });
    } finally {
      expect(await receiver.stop()).toBe(0);
    }
  });

  it('inbox mode with memoryStore: queued, run once in the background, a redelivery is a duplicate', async () => {
    const receiver = await RuntimeReceiver.start(command, ['memory', 'inbox']);
    try {
      const first = delivery();
      expect(await receiver.post(first.body, first.headers)).toEqual({ status: 200, body: { received: true, id: first.id, type: 'invoice.paid', duplicate: false, queued: true } });
      expect(await receiver.runs(1)).toEqual({ [first.id]: 1 });
      expect((await receiver.post(first.body, first.headers)).body).toMatchObject({ id: first.id, duplicate: true });
      // A second event's run is the barrier: had the redelivery run the handler again, it would show by now.
      const second = delivery();
      expect((await receiver.post(second.body, second.headers)).body).toMatchObject({ queued: true, duplicate: false });
      expect(await receiver.runs(2)).toEqual({ [first.id]: 1, [second.id]: 1 });
    } finally {
      expect(await receiver.stop()).toBe(0);
    }
  });

  it('the default store, a SQLite file on the runtime’s node:sqlite: a redelivery after a restart is a duplicate', async () => {
    const directory = mkdtempSync(join(project, 'sqlite-'));
    copyFileSync(FIXTURE, join(directory, 'fetch-receiver.mjs'));
    const { id, body, headers } = delivery();
    const receiver = await RuntimeReceiver.start(command, ['sqlite'], directory);
    expect((await receiver.post(body, headers)).body).toMatchObject({ id, duplicate: false });
    expect(await receiver.runs(1)).toEqual({ [id]: 1 });
    expect(await receiver.stop()).toBe(0);
    expect(receiver.errors).not.toMatch(/warn|error/i);

    const restarted = await RuntimeReceiver.start(command, ['sqlite'], directory);
    try {
      expect((await restarted.post(body, headers)).body).toMatchObject({ id, duplicate: true });
    } finally {
      expect(await restarted.stop()).toBe(0);
    }
    const db = new Database(join(directory, 'webhook-events.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT event_id, state FROM acct_webhook_events').all()).toEqual([{ event_id: id, state: 'completed' }]);
    } finally {
      db.close();
    }
  });

  it('inbox mode with sqliteStore: queued, run once, a redelivery is a duplicate', async () => {
    const file = join(mkdtempSync(join(project, 'inbox-')), 'events.db');
    const receiver = await RuntimeReceiver.start(command, ['sqlite', file, 'inbox']);
    try {
      const first = delivery();
      expect((await receiver.post(first.body, first.headers)).body).toMatchObject({ id: first.id, queued: true, duplicate: false });
      expect(await receiver.runs(1)).toEqual({ [first.id]: 1 });
      expect((await receiver.post(first.body, first.headers)).body).toMatchObject({ id: first.id, duplicate: true });
      const second = delivery();
      await receiver.post(second.body, second.headers);
      expect(await receiver.runs(2)).toEqual({ [first.id]: 1, [second.id]: 1 });
    } finally {
      expect(await receiver.stop()).toBe(0);
    }
  });

  it('sqliteStore asked for better-sqlite3 by name: refused when the factory runs, in one line saying to leave the driver out', async () => {
    const script = `
      import { sqliteStore } from 'acct-webhook';
      try {
        sqliteStore('refused.db', { driver: 'better-sqlite3' });
        console.log(JSON.stringify({ opened: true }));
      } catch (error) {
        console.log(JSON.stringify({ code: error.code, details: error.details }));
      }
    `;
    writeFileSync(join(project, 'refused.mjs'), script);
    const { stdout } = await run(command[0]!, [...command.slice(1), 'refused.mjs'], { cwd: project });
    const runtime = name === 'bun' ? 'Bun' : 'Deno';
    expect(JSON.parse(stdout)).toEqual({
      code: 'INVALID_CONFIGURATION',
      details: {
        option: 'driver',
        reason: expect.stringMatching(new RegExp(`^needs better-sqlite3, a Node\\.js addon that ${runtime} [\\d.]+ cannot load \\(.+\\): leave the driver option out, and the store runs on ${runtime}'s node:sqlite$`)),
      },
    });
  });

  describe('postgresStore with pg', () => {
    const database = useTestDatabase();

    it('a signed delivery runs the handler once; a redelivery to a second receiver on the same database is a duplicate', async () => {
      const schema = database.newSchema();
      const { id, body, headers } = delivery();
      const receiver = await RuntimeReceiver.start(command, ['postgres', database.url, schema]);
      const other = await RuntimeReceiver.start(command, ['postgres', database.url, schema]);
      try {
        expect((await receiver.post(body, headers)).body).toMatchObject({ id, duplicate: false });
        expect((await other.post(body, headers)).body).toMatchObject({ id, duplicate: true });
        expect(await receiver.runs(1)).toEqual({ [id]: 1 });
        expect(await other.runs(0)).toEqual({});
      } finally {
        expect(await receiver.stop()).toBe(0);
        expect(await other.stop()).toBe(0);
      }
      const { rows } = await database.pool.query(`SELECT event_id, state FROM "${schema}".acct_webhook_events`);
      expect(rows).toEqual([{ event_id: id, state: 'completed' }]);
    });
  });
});

describe('the CLI on Bun', () => {
  const bun = join(root, 'node_modules', 'bun', 'bin', 'bun.exe');

  it('bunx acct-webhook demo runs on Bun where no Node.js is on PATH: every event delivered, exit 0', async () => {
    // PATH holds bun and bunx and nothing else: the bin's `#!/usr/bin/env node` finds no Node.js, so Bun runs it.
    const onlyBun = mkdtempSync(join(project, 'only-bun-'));
    symlinkSync(bun, join(onlyBun, 'bun'));
    symlinkSync(bun, join(onlyBun, 'bunx'));
    // A shell's environment, not npm's: npm sets NODE for its scripts (this test runs under one), and Bun takes that for the Node.js to run.
    const env = { HOME: process.env.HOME, PATH: onlyBun };
    await expect(run('/bin/sh', ['-c', 'command -v node'], { cwd: project, env })).rejects.toThrow();
    const { stdout, stderr } = await run(join(onlyBun, 'bunx'), ['acct-webhook', 'demo'], { cwd: project, timeout: OUTCOME_TIMEOUT_MS, env });
    expect(stdout).toContain(`Summary: ${EVENT_TYPES.length} of ${EVENT_TYPES.length} events delivered`);
    expect(stderr).toBe('');
  });

  it('bunx --bun acct-webhook demo runs on Bun beside a Node.js', async () => {
    const { stdout, stderr } = await run(bun, ['x', '--bun', 'acct-webhook', 'demo'], { cwd: project, timeout: OUTCOME_TIMEOUT_MS });
    expect(stdout).toContain(`Summary: ${EVENT_TYPES.length} of ${EVENT_TYPES.length} events delivered`);
    expect(stderr).toBe('');
  });
});
