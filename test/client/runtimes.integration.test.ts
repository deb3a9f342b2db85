import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { dist, externalImports, root } from '../helpers/dist.js';
import { bundleWorker, WorkerdWorker } from '../helpers/workerd.js';

/*
 * The built acct-webhook/client on the runtimes it is written for, against the sandbox on
 * 127.0.0.1: workerd (Cloudflare's runtime, without nodejs_compat), Bun and Deno (the npm
 * packages `bun` and `deno`). Each runs the same calls: create a webhook, list, me, and a typed
 * error for an unknown id.
 */

const run = promisify(execFile);

/** The calls every runtime makes; `clientModule` is the built entry, `config` the sandbox's address and key. */
const calls = (clientModule: string) => `
import { ApiNotFoundError, createClient } from ${JSON.stringify(clientModule)};

export async function exercise(config) {
  const client = createClient({ apiKey: config.apiKey, baseUrl: config.baseUrl, logger: false });
  const created = await client.webhooks.create({ url: 'https://localhost:9/' + config.runtime, events: ['invoice.*'] });
  const listed = (await client.webhooks.list()).some((webhook) => webhook.id === created.id);
  const me = await client.me();
  const missing = await client.webhooks.delete('wh_unknown').catch((error) => error);
  await client.webhooks.delete(created.id);
  return {
    secret: created.secret.startsWith('whsec_'),
    listed,
    business: me.business.id,
    missing: { typed: missing instanceof ApiNotFoundError, code: missing.code, status: missing.status },
    rateLimit: client.rateLimit !== null,
  };
}
`;

let sandbox: Sandbox;
let business: string;
let workdir: string;

beforeAll(async () => {
  sandbox = await createSandbox({ seed: 11 });
  business = (await (await fetch(`${sandbox.url}/me`, { headers: { authorization: `Bearer ${sandbox.apiKey}` } })).json() as { data: { business: { id: string } } }).data.business.id;
  workdir = mkdtempSync(join(tmpdir(), 'acct-client-runtimes-'));
});
afterAll(async () => {
  await sandbox.close();
  rmSync(workdir, { recursive: true, force: true });
});

const expected = () => ({ secret: true, listed: true, business, missing: { typed: true, code: 'NOT_FOUND', status: 404 }, rateLimit: true });

it('the built entry imports no module: no node: built-in, no zod', () => {
  expect([...externalImports('client.js')]).toEqual([]);
});

describe('in workerd, without nodejs_compat', () => {
  it('makes the calls against the sandbox', async () => {
    const script = await bundleWorker(`${calls(join(dist, 'client.js'))}
export default {
  async fetch(request, env) {
    try {
      return Response.json(await exercise({ apiKey: env.API_KEY, baseUrl: env.BASE_URL, runtime: 'workerd' }));
    } catch (error) {
      return Response.json({ failed: String(error), code: error.code }, { status: 500 });
    }
  },
};`);
    const worker = await WorkerdWorker.start(script, { compatibilityFlags: [], bindings: { API_KEY: sandbox.apiKey, BASE_URL: sandbox.baseUrl } });
    try {
      const answer = await fetch(worker.url);
      expect(await answer.json()).toEqual(expected());
    } finally {
      await worker.dispose();
    }
  }, 60_000);
});

describe.each([
  ['bun', [join(root, 'node_modules', '.bin', 'bun'), 'run']],
  ['deno', [join(root, 'node_modules', '.bin', 'deno'), 'run', '--allow-net=127.0.0.1', `--allow-read=${root}`]],
])('on %s', (runtime, command) => {
  it('makes the calls against the sandbox', async () => {
    const file = join(workdir, `${runtime}.mjs`);
    writeFileSync(file, `${calls(join(dist, 'client.js'))}
console.log(JSON.stringify(await exercise({ apiKey: ${JSON.stringify(sandbox.apiKey)}, baseUrl: ${JSON.stringify(sandbox.baseUrl)}, runtime: ${JSON.stringify(runtime)} })));
`);
    const { stdout } = await run(command[0]!, [...command.slice(1), file], { timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual(expected());
  }, 90_000);
});
