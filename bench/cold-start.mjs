// One cold start, in this fresh process: `node bench/cold-start.mjs <acct-webhook|octokit> [dist directory]`.
// acct-webhook: `await import(dist/index.js)` + `fetchHandler({ secret, handlers: new Webhooks().on(…), store: memoryStore() })`
// + the first verified request answered (an invoice.paid event, signed, parsed, handled: 200).
// @octokit/webhooks: `await import('@octokit/webhooks')` + `new Webhooks({ secret })` + `verifyAndReceive`
// of the first request. Prints {"ms"} (the time from before the import to the answer) as its last line.
// The request is signed before the clock starts: that is the sender's work.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SECRET = 'whsec_benchmarkSecretForLoopbackOnly00';
const here = dirname(fileURLToPath(import.meta.url));
const [which = 'acct-webhook', distArgument] = process.argv.slice(2);
const dist = resolve(distArgument ?? join(here, '..', 'dist'));
// A sample event, as the platform sends it (read from a fixture, not built with the library: that would load it early).
const body = readFileSync(join(here, 'lib', 'cold-start-event.json'), 'utf8').trim();

async function acctWebhook() {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', SECRET).update(`${timestamp}.${body}`).digest('hex');
  const headers = { 'content-type': 'application/json', 'x-svc-signature': signature, 'x-svc-timestamp': timestamp };
  const request = new globalThis.Request('http://127.0.0.1/webhooks', { method: 'POST', headers, body });
  let handled = 0;
  const start = performance.now();
  const { fetchHandler, memoryStore, Webhooks } = await import(pathToFileURL(join(dist, 'index.js')).href);
  const handlers = new Webhooks().on('invoice.paid', () => void handled++);
  const handler = fetchHandler({ secret: SECRET, store: memoryStore(), handlers });
  const response = await handler(request);
  const ms = performance.now() - start;
  if (response.status !== 200 || handled !== 1) throw new Error(`acct-webhook answered ${response.status} (handled ${handled}): ${await response.text()}`);
  return ms;
}

async function octokit() {
  const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
  let handled = 0;
  const start = performance.now();
  const { Webhooks } = await import('@octokit/webhooks');
  const webhooks = new Webhooks({ secret: SECRET });
  webhooks.onAny(() => void handled++);
  await webhooks.verifyAndReceive({ id: 'd-1', name: 'ping', signature, payload: body });
  const ms = performance.now() - start;
  if (handled !== 1) throw new Error('@octokit/webhooks did not run its handler');
  return ms;
}

// The receiver's default logger writes its line per delivery (its cost counts); the line itself is not for the bench's output.
process.stderr.write = () => true;
const ms = which === 'octokit' ? await octokit() : await acctWebhook();
console.log(JSON.stringify({ ms }));
