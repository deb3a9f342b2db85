import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../cli/helpers.js';
import { dist } from '../helpers/dist.js';
import { close, listen, type RunningServer } from '../helpers/server.js';

/*
 * The fault proxy streams with the Dispatcher's limits, measured where it counts: the built
 * sandbox runs in a child process of its own, delivers to receivers on 127.0.0.1 here that
 * answer 300 MiB, answer without end, or trickle an answer that never ends, and reports its own
 * peak resident memory (`process.resourceUsage().maxRSS`, measured in the child).
 */

const MiB = 1024 * 1024;
/** The bound: the sandbox stays at or under this while receivers answer without end. */
const MAX_RSS_BYTES = 150 * 1000 * 1000;
const DELIVERY_TIMEOUT_MS = 2_000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** What a receiver wrote before the proxy stopped reading. */
interface Served {
  bytes: number;
  finished: boolean | null;
}

/** A receiver that answers 200 and writes `total` bytes (Infinity: forever), honouring backpressure. */
async function streamingReceiver(total: number, served: Served): Promise<RunningServer> {
  const chunk = Buffer.alloc(MiB, 'x');
  const running = await listen((request, response: ServerResponse) => {
    request.resume();
    response.on('close', () => (served.finished = response.writableFinished));
    response.writeHead(200, { 'content-type': 'application/octet-stream' });
    const write = (): void => {
      while (served.bytes < total) {
        served.bytes += chunk.length;
        if (!response.write(chunk)) {
          response.once('drain', write);
          return;
        }
      }
      response.end();
    };
    write();
  });
  cleanups.push(() => close(running.server));
  return running;
}

/** A receiver that sends its status and then a byte every 50 ms, never ending. */
async function tricklingReceiver(served: Served): Promise<RunningServer> {
  const running = await listen((request, response) => {
    request.resume();
    response.writeHead(200);
    const timer = setInterval(() => {
      served.bytes += 1;
      response.write('x');
    }, 50);
    response.on('close', () => {
      clearInterval(timer);
      served.finished = response.writableFinished;
    });
  });
  cleanups.push(() => close(running.server));
  return running;
}

/** The child: the built sandbox, one webhook per receiver, a few events, then its peak RSS. */
const CHILD = (sandboxModule: string) => `
import { createSandbox } from ${JSON.stringify(sandboxModule)};
const urls = JSON.parse(process.argv[2]);
const attempts = [];
const sandbox = await createSandbox({ deliveryTimeoutMs: ${DELIVERY_TIMEOUT_MS}, onAttempt: ({ attempt }) => attempts.push(attempt) });
const call = (method, path, body) =>
  fetch(sandbox.url + path, { method, headers: { authorization: 'Bearer ' + sandbox.apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((answer) => answer.json());
for (const url of urls) await call('POST', '/webhooks', { url, events: ['customer.*'] });
for (let index = 0; index < 3; index++) await call('POST', '/customers', { name: 'Kunde ' + index });
await sandbox.settle();
const report = {
  maxRssBytes: process.resourceUsage().maxRSS * 1024,
  attempts: attempts.map((attempt) => ({ url: attempt.url, status: attempt.response_status, error_kind: attempt.error_kind, body_bytes: Buffer.byteLength(attempt.response_body ?? '') })),
};
await sandbox.close();
process.stdout.write(JSON.stringify(report));
`;

function runChild(script: string, urls: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, JSON.stringify(urls)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the sandbox in a process of its own, delivering to receivers that answer without end', () => {
  it(`stays at or under 150 MB RSS while receivers answer 300 MiB, answer forever, or trickle forever; keeps 64 KiB of each and ends each exchange`, async () => {
    const huge: Served = { bytes: 0, finished: null };
    const endless: Served = { bytes: 0, finished: null };
    const trickle: Served = { bytes: 0, finished: null };
    const receivers = [await streamingReceiver(300 * MiB, huge), await streamingReceiver(Infinity, endless), await tricklingReceiver(trickle)];
    const urls = receivers.map((receiver) => `${receiver.url}/hook`);
    const directory = temporaryDirectory('acct-sandbox-rss');
    cleanups.push(() => directory.remove());
    const script = join(directory.path, 'sandbox-child.mjs');
    writeFileSync(script, CHILD(pathToFileURL(join(dist, 'sandbox.js')).href));

    const child = await runChild(script, urls);
    expect(child.code, child.stderr).toBe(0);
    const report = JSON.parse(child.stdout) as { maxRssBytes: number; attempts: { url: string; status: number | null; error_kind: string | null; body_bytes: number }[] };
    console.log(`sandbox child: peak RSS ${(report.maxRssBytes / MiB).toFixed(1)} MiB over ${report.attempts.length} attempts`);
    expect(report.maxRssBytes).toBeLessThanOrEqual(MAX_RSS_BYTES);

    const of = (url: string) => report.attempts.filter((attempt) => attempt.url === url);
    // 300 MiB and forever: the status decides (200, delivered), 64 KiB of the body are kept, the rest is never read.
    for (const url of [urls[0]!, urls[1]!]) {
      expect(of(url)).toHaveLength(3);
      expect(of(url).every((attempt) => attempt.status === 200 && attempt.error_kind === null && attempt.body_bytes <= 64 * 1024)).toBe(true);
    }
    expect(huge.finished).toBe(false);
    expect(huge.bytes).toBeLessThan(300 * MiB);
    expect(endless.finished).toBe(false);
    // A trickle that never ends: the exchange ends at the Dispatcher's timeout; its status decides, as it does for the Dispatcher.
    expect(of(urls[2]!)).toHaveLength(3);
    expect(of(urls[2]!).every((attempt) => attempt.status === 200 && attempt.body_bytes < 64 * 1024)).toBe(true);
    expect(trickle.finished).toBe(false);
  });
});
