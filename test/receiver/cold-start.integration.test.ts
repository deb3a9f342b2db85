// A receiver's cold start loads neither zod nor pino: importing zod costs a fresh
// process about 30 ms, and the receiver's path needs neither (generated event validators,
// zod-free option checks, a built-in JSON logger). Each case runs in a fresh node process with a
// module hook that records every file the ES module loader loads (or require.cache for
// CommonJS), imports the built entry, creates the handlers and answers a signed request.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dist, root } from '../helpers/dist.js';

const EVENT_FILE = join(root, 'bench', 'lib', 'cold-start-event.json');

const HEAVY = /[\\/]node_modules[\\/](zod|pino)[\\/]/;

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'acct-webhook-cold-start-'));
  writeFileSync(
    join(dir, 'record-loads.mjs'),
    "import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { appendFileSync(process.env.LOADS_FILE, url + '\\n'); return next(url, context); }\n",
  );
  writeFileSync(join(dir, 'register-hooks.mjs'), "import { register } from 'node:module';\nregister('./record-loads.mjs', import.meta.url);\n");
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the process runs after its entry is loaded as `lib`: a signed event answered 200 by each handler of the entry. */
const RECEIVE = `
const { createHmac } = await import('node:crypto');
const secret = 'whsec_coldStartTestSecretOnLoopback00';
const body = (await import('node:fs')).readFileSync(process.env.EVENT_FILE, 'utf8').trim();
const signed = () => {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const headers = { 'content-type': 'application/json', 'x-svc-timestamp': timestamp, 'x-svc-signature': createHmac('sha256', secret).update(timestamp + '.' + body).digest('hex') };
  return new Request('http://127.0.0.1/webhooks', { method: 'POST', headers, body });
};
let handled = 0;
const handlers = new lib.Webhooks().on('invoice.paid', () => void handled++);
const fetchHandler = lib.fetchHandler({ secret, store: lib.memoryStore(), handlers });
const response = await fetchHandler(signed());
if (response.status !== 200 || handled !== 1) throw new Error('fetchHandler answered ' + response.status + ': ' + await response.text());
if (lib.nodeHandler) {
  lib.nodeHandler({ secret, store: lib.memoryStore(), handlers });
  const express = lib.webhookHandler({ secret, handlers, database: process.env.DATABASE });
  await lib.createReceiver({ secret, store: lib.memoryStore(), inbox: true, ordering: true, logger: false }).close();
  await express.receiver.close();
}
`;

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

async function loadedFiles(name: string, script: string): Promise<string[]> {
  const loads = join(dir, `loads-${name}.txt`);
  writeFileSync(loads, '');
  const env = { LOADS_FILE: loads, DATABASE: join(dir, `${name}.db`), EVENT_FILE };
  const result = await run(['--import', './register-hooks.mjs', '--input-type=module', '-e', script], env);
  expect(result.code, result.stderr).toBe(0);
  return readFileSync(loads, 'utf8').split('\n').filter((line) => line !== '');
}

describe('a cold start of the receiver loads neither zod nor pino', () => {
  it.each(['index', 'web'])('dist/%s.js: import, fetchHandler and its first verified request, nodeHandler, webhookHandler with the default SQLite store', async (entry) => {
    const script = `const lib = await import(${JSON.stringify(pathToFileURL(join(dist, `${entry}.js`)).href)});\n${RECEIVE}`;
    const files = await loadedFiles(entry, script);
    expect(files.some((file) => file.includes('/dist/'))).toBe(true);
    expect(files.filter((file) => HEAVY.test(file))).toEqual([]);
  });

  // Each module the ES module loader loads costs about as much as its code (bench/history.md):
  // the build merges what index.js loads into four chunks (tsup.config.ts, mergeReceiverChunks),
  // by what web.js and the CLI share with it. esbuild's own chunking made it 36 files.
  it('dist/index.js: the import, fetchHandler and its first request load five files of dist/ (index.js and its four chunks)', async () => {
    const script = `const lib = await import(${JSON.stringify(pathToFileURL(join(dist, 'index.js')).href)});\n${RECEIVE}`;
    const distUrl = `${pathToFileURL(dist).href}/`;
    const files = (await loadedFiles('index-files', script)).filter((file) => file.startsWith(distUrl));
    expect(files.map((file) => file.slice(distUrl.length).replace(/-[\w-]{8}\.js$/, '.js')).sort()).toEqual(['index.js', 'receiver-node.js', 'receiver-web.js', 'shared-node.js', 'shared-web.js']);
  });

  it.each(['fastify', 'hono', 'koa'])('dist/%s.js: the import', async (entry) => {
    const files = await loadedFiles(entry, `await import(${JSON.stringify(pathToFileURL(join(dist, `${entry}.js`)).href)});`);
    expect(files.filter((file) => HEAVY.test(file))).toEqual([]);
  });

  it('dist/index.cjs: require, the same handlers', async () => {
    const loads = join(dir, 'loads-cjs.txt');
    const script = `(async () => { const lib = require(${JSON.stringify(join(dist, 'index.cjs'))});\n${RECEIVE}\nrequire('node:fs').writeFileSync(process.env.LOADS_FILE, Object.keys(require.cache).join('\\n')); })().catch((error) => { console.error(error); process.exit(1); });`;
    const result = await run(['-e', script], { LOADS_FILE: loads, DATABASE: join(dir, 'cjs.db'), EVENT_FILE });
    expect(result.code, result.stderr).toBe(0);
    const files = readFileSync(loads, 'utf8').split('\n');
    expect(files.some((file) => file.endsWith('index.cjs'))).toBe(true);
    expect(files.filter((file) => HEAVY.test(file))).toEqual([]);
  });

  it('the control: the hook sees zod when the application imports it (an empty list above is not a blind hook)', async () => {
    const script = `const lib = await import(${JSON.stringify(pathToFileURL(join(dist, 'index.js')).href)});\nawait import(${JSON.stringify(pathToFileURL(createRequire(join(root, 'package.json')).resolve('zod')).href)});`;
    const files = await loadedFiles('control', script);
    expect(files.filter((file) => HEAVY.test(file)).length).toBeGreaterThan(0);
  });
});
