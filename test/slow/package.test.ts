import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { nodeSqliteSupport } from '../../src/stores/sqlite/node-sqlite.js';
import { POSTGRES_URL } from '../helpers/postgres.js';

const run = promisify(execFile);
const tsc = resolve(import.meta.dirname, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc');

// The package as a user gets it: `npm pack`, installed into a fresh project, loaded both ways.
describe('the packed package', () => {
  let project: string;

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'acct-webhook-consumer-'));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    await run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', inject('tarball'), '@types/node@20', 'pg@8'], {
      cwd: project,
    });
  });

  afterAll(() => rmSync(project, { recursive: true, force: true }));

  const check = `
    const event = testing.createTestEvent('invoice.paid');
    const body = JSON.stringify(event);
    const signed = main.signPayload({ payload: body, secret: 'whsec_pack' });
    main.verifySignature({ payload: body, signature: signed.signature, timestamp: signed.timestamp, secret: 'whsec_pack' });
    console.log(JSON.stringify({ type: main.parseEvent(body).type, types: main.EVENT_TYPES.length }));
  `;

  it('loads with require() (CommonJS)', async () => {
    writeFileSync(
      join(project, 'check.cjs'),
      `const main = require('acct-webhook'); const testing = require('acct-webhook/testing');\n${check}`,
    );
    const { stdout } = await run('node', ['check.cjs'], { cwd: project });
    expect(JSON.parse(stdout)).toEqual({ type: 'invoice.paid', types: 18 });
  });

  it('loads with import (ES modules)', async () => {
    writeFileSync(
      join(project, 'check.mjs'),
      `import * as main from 'acct-webhook'; import * as testing from 'acct-webhook/testing';\n${check}`,
    );
    const { stdout } = await run('node', ['check.mjs'], { cwd: project });
    expect(JSON.parse(stdout)).toEqual({ type: 'invoice.paid', types: 18 });
  });

  it('ships declarations that type-check for both module systems', async () => {
    const usage = `
      const event = createTestEvent('invoice.paid');
      const amount: number = event.data.object.amount;
      const parsed = parseEvent(JSON.stringify(event));
      if (parsed.type === 'invoice.paid') { const paidAt: string = parsed.data.object.paid_at; void paidAt; }
      void amount;
    `;
    writeFileSync(
      join(project, 'esm.mts'),
      `import { parseEvent } from 'acct-webhook';\nimport { createTestEvent } from 'acct-webhook/testing';\n${usage}`,
    );
    writeFileSync(
      join(project, 'cjs.cts'),
      `import { parseEvent } from 'acct-webhook';\nimport { createTestEvent } from 'acct-webhook/testing';\n${usage}`,
    );
    const args = ['--noEmit', '--strict', '--module', 'node16', '--moduleResolution', 'node16', '--types', 'node'];
    await expect(run('node', [tsc, ...args, 'esm.mts', 'cjs.cts'], { cwd: project })).resolves.toBeDefined();
  });

  // The generator reads the installed package's version from its own package.json.
  const catalogCheck = (load: string) => `
    ${load}
    const { openapi } = catalogDocuments();
    const shipped = readFileSync(require.resolve('acct-webhook/package.json').replace('package.json', 'schemas/openapi.json'), 'utf8');
    console.log(JSON.stringify({ version: openapi.info.version, asShipped: shipped === JSON.stringify(openapi) + '\\n' }));
  `;

  it.each([
    ['import', 'catalog.mjs', "import { createRequire } from 'node:module'; import { readFileSync } from 'node:fs'; import { catalogDocuments } from 'acct-webhook/catalog'; const require = createRequire(import.meta.url);"],
    ['require()', 'catalog.cjs', "const { readFileSync } = require('node:fs'); const { catalogDocuments } = require('acct-webhook/catalog');"],
  ])("acct-webhook/catalog (%s) generates the installed version's documents, as shipped under schemas/", async (_how, script, load) => {
    writeFileSync(join(project, script), catalogCheck(load));
    const { stdout } = await run('node', [script], { cwd: project });
    const { version } = JSON.parse(readFileSync(join(project, 'node_modules', 'acct-webhook', 'package.json'), 'utf8')) as { version: string };
    expect(JSON.parse(stdout)).toEqual({ version, asShipped: true });
  });

  // Native code only when used: the receiver on memoryStore or postgresStore, and every entry
  // point, load without better-sqlite3; a SQLite store says what to install when it is created.
  describe('without better-sqlite3 installed', () => {
    const program = (load: (specifier: string) => string) => `
      const { createServer } = ${load('node:http')};
      const { memoryStore, nodeHandler, sqliteStore } = ${load('acct-webhook')};
      const { Dispatcher } = ${load('acct-webhook/dispatcher')};
      const { sqliteDispatchStore } = ${load('acct-webhook/sqlite')};
      const { postgresStore } = ${load('acct-webhook/postgres')};
      const { dashboardFetchHandler } = ${load('acct-webhook/dashboard')};
      if (typeof dashboardFetchHandler !== 'function') throw new Error('acct-webhook/dashboard did not load');
      const { createTestEvent, signedHeaders } = ${load('acct-webhook/testing')};
      const secret = 'whsec_withoutDriver';
      async function serve(store) {
        const server = createServer(nodeHandler({ secret, store, logger: false }));
        await new Promise((listening) => server.listen(0, '127.0.0.1', listening));
        const body = JSON.stringify(createTestEvent('invoice.paid'));
        const response = await fetch('http://127.0.0.1:' + server.address().port + '/webhooks', { method: 'POST', body, headers: signedHeaders(body, secret) });
        await new Promise((closed) => server.close(closed));
        await store.close();
        return response.status;
      }
      function refusal(create) {
        try { create(); return null; } catch (error) { return { code: error.code, option: error.details.option, reason: error.details.reason }; }
      }
      async function main() {
        const [url, schema] = process.argv.slice(2);
        const result = {
          memoryStore: await serve(memoryStore()),
          sqliteStore: refusal(() => sqliteStore('events.db')),
          sqliteDispatchStore: refusal(() => sqliteDispatchStore('dispatch.db')),
          dispatcher: refusal(() => new Dispatcher({ logger: false })),
        };
        if (url) result.postgresStore = await serve(postgresStore(url, { schema }));
        console.log(JSON.stringify(result));
      }
      main().catch((error) => { console.error(error); process.exit(1); });
    `;

    beforeAll(() => {
      rmSync(join(project, 'node_modules', 'better-sqlite3'), { recursive: true, force: true });
      expect(existsSync(join(project, 'node_modules', 'better-sqlite3'))).toBe(false);
      writeFileSync(join(project, 'without-driver.mjs'), program((specifier) => `await import('${specifier}')`));
      writeFileSync(join(project, 'without-driver.cjs'), program((specifier) => `require('${specifier}')`));
    });

    const schemas: string[] = [];
    afterAll(async () => {
      if (schemas.length === 0) return;
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    });

    // Where the Node.js running this has node:sqlite, the SQLite stores run on it instead
    // (test/slow/node-sqlite-install.test.ts shows that on Node.js 24); where it has none
    // (Node.js 20), they say what to install, or which Node.js to run.
    const refused = nodeSqliteSupport().module
      ? null
      : { code: 'INVALID_CONFIGURATION', option: 'database', reason: expect.stringMatching(/npm install better-sqlite3.*node:sqlite/) };

    // A refusal nobody catches, at the top of a module, as in an app's first run: Node.js prints
    // the error's own line first, not the package's line of code that threw it (a whole
    // minified module), and a package that is not installed brings no resolver stack as its cause.
    it.each([
      ['refusal.mjs', "import { sqliteStore } from 'acct-webhook';\nsqliteStore('events.db', { driver: 'better-sqlite3' });\n", /^ConfigurationError: SQLite storage needs the better-sqlite3 package, which is not installed \(npm install better-sqlite3\)$/],
      ['refusal.cjs', "const { sqliteStore } = require('acct-webhook');\nsqliteStore('events.db', { driver: 'better-sqlite3' });\n", /^ConfigurationError: SQLite storage needs the better-sqlite3 package, which is not installed \(npm install better-sqlite3\)$/],
      ['unknown-option.mjs', "import { webhookHandler } from 'acct-webhook';\nwebhookHandler({ secret: 'whsec_x', handler: {} });\n", /^ConfigurationError: .*handler/],
    ])('%s: an uncaught refusal prints its one-line message first, and no line of the built code', async (script, source, firstLine) => {
      writeFileSync(join(project, script), source);
      const failed = await run('node', [script], { cwd: project }).then(() => undefined, (error: { code: number; stderr: string }) => error);
      expect(failed?.code).toBe(1);
      const lines = failed!.stderr.split('\n').filter((line) => line.trim() !== '');
      expect(lines[0]).toMatch(firstLine);
      expect(failed!.stderr).not.toMatch(/Require stack|MODULE_NOT_FOUND/);
      // No source line above it (Node.js's `file:…:1`, the code, a caret), and nothing long below:
      // the stack's frames and the error's fields.
      expect(lines.filter((line) => /^file:|^\/.*\.c?js:\d+$|^\s*\^+\s*$/.test(line) || line.length > 400)).toEqual([]);
    });

    it.each(['without-driver.mjs', 'without-driver.cjs'])('%s: serves on memoryStore and postgresStore; a SQLite store runs on node:sqlite, or says what to install', async (script) => {
      const schema = `acct_package_${script.endsWith('mjs') ? 'esm' : 'cjs'}_${process.pid}`;
      schemas.push(schema);
      const { stdout } = await run('node', [script, POSTGRES_URL, schema], { cwd: project });
      expect(JSON.parse(stdout)).toEqual({
        memoryStore: 200,
        sqliteStore: refused,
        sqliteDispatchStore: refused,
        dispatcher: refused,
        postgresStore: 200,
      });
    });
  });
});

// npm 11 lists every install of a package with an install-time script (prepare included, which
// npm runs for git and directory installs) as "not yet covered by allowScripts". The package has
// none: dist/ is built by prepack, and in the repository by the tests' global setup.
describe('installed by npm with its scripts allowed', () => {
  let project: string;
  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'acct-webhook-scripts-'));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  });
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('runs and announces no script of acct-webhook: it has no prepare, preinstall, install or postinstall', async () => {
    // Without better-sqlite3 (--omit=optional), whose own install script is not this package's.
    const { stderr } = await run('npm', ['install', '--omit=optional', '--no-audit', '--no-fund', '--prefer-offline', inject('tarball')], { cwd: project });
    // On a Node.js line outside `engines` (20 works, unsupported: docs/development.md) npm warns
    // EBADENGINE naming the package; that is not a script.
    const notEngineWarnings = stderr.split('\n').filter((line) => !line.startsWith('npm warn EBADENGINE')).join('\n');
    expect(notEngineWarnings).not.toContain('acct-webhook@');
    const installed = JSON.parse(readFileSync(join(project, 'node_modules', 'acct-webhook', 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    expect(Object.keys(installed.scripts ?? {}).filter((name) => ['prepare', 'preinstall', 'install', 'postinstall'].includes(name))).toEqual([]);
  });
});
