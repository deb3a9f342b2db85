// The dispatcher's benchmarks, each run in a fresh process by bench/run.mjs.
//   node bench/dispatch.mjs throughput <events> <receiver port>
//     emits <events> events (not timed), then times the worker (concurrency 50, SQLite, delivery
//     log included) delivering them all to a bare node:http receiver in another process.
//   node bench/dispatch.mjs isolation <events> <healthy port>[,<hanging port>…]
//     one healthy registration and, after it, a registration per hanging receiver (accepts, never
//     answers), all subscribed to every event, with the dispatcher's defaults (30 s timeout):
//     emits <events> events (not timed), then times the worker until the healthy registration's
//     deliveries are all delivered.
//   node bench/dispatch.mjs fill <events> <file>   then   node bench/dispatch.mjs idle 0 <file>
//     saves <events> deliveries due in an hour; then, in a fresh process, starts a worker over
//     them and reports its RSS after it has looked at the schedule for a while: memory must not
//     grow with what is pending.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Dispatcher } from '../dist/dispatcher.js';
import { EVENT_TYPES } from '../dist/index.js';
import { createTestEvent } from '../dist/testing.js';

const [mode, count, port] = process.argv.slice(2);
const events = Number(count);
const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-bench-dispatch-'));
const HOUR = 3_600_000;

async function emitAll(dispatcher) {
  for (let i = 0; i < events; i += 200) {
    const batch = Array.from({ length: Math.min(200, events - i) }, (_, j) => createTestEvent(EVENT_TYPES[(i + j) % EVENT_TYPES.length]));
    await Promise.all(batch.map((event) => dispatcher.emit(event)));
  }
}

async function delivered(dispatcher, filter = {}) {
  for (;;) {
    if ((await dispatcher.deliveries.list({ ...filter, status: 'retrying', limit: 1 })).length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function throughput() {
  const dispatcher = new Dispatcher({ database: join(dir, 'dispatch.db'), concurrency: 50, allowInsecureUrls: true, logger: false });
  await dispatcher.webhooks.create({ url: `http://127.0.0.1:${port}/webhooks`, events: ['*'] });
  await emitAll(dispatcher);
  const start = performance.now();
  await dispatcher.start();
  await delivered(dispatcher);
  const seconds = (performance.now() - start) / 1000;
  await dispatcher.stop();
  const detail = (await dispatcher.deliveries.list({ status: 'delivered', limit: 1 }))[0];
  const attempts = detail ? (await dispatcher.deliveries.get(detail.id)).attempts.length : 0;
  await dispatcher.close();
  return { deliveriesPerSecond: events / seconds, seconds, attemptsLogged: attempts };
}

/** Healthy deliveries per second beside hanging registrations (none: alone). */
async function isolation(ports) {
  const [healthyPort, ...hangingPorts] = ports.split(',');
  const dispatcher = new Dispatcher({ database: join(dir, 'dispatch.db'), allowInsecureUrls: true, logger: false });
  const healthy = await dispatcher.webhooks.create({ url: `http://127.0.0.1:${healthyPort}/webhooks`, events: ['*'] });
  for (const port of hangingPorts) await dispatcher.webhooks.create({ url: `http://127.0.0.1:${port}/webhooks`, events: ['*'] });
  await emitAll(dispatcher);
  const start = performance.now();
  await dispatcher.start();
  await delivered(dispatcher, { webhook_id: healthy.id });
  const seconds = (performance.now() - start) / 1000;
  // The hanging attempts would hold stop() for their 30 s timeout: the process ends instead.
  return { healthyPerSecond: events / seconds, seconds, hanging: hangingPorts.length };
}

/** Saves the deliveries "an hour ahead": pending in the schedule, none due yet. */
async function fill(file) {
  let now = Date.now() + HOUR;
  const dispatcher = new Dispatcher({ database: file, allowInsecureUrls: true, logger: false, clock: () => now });
  await dispatcher.webhooks.create({ url: 'http://127.0.0.1:9/webhooks', events: ['*'] });
  const start = performance.now();
  await emitAll(dispatcher);
  await dispatcher.close();
  return { pending: events, emitSeconds: (performance.now() - start) / 1000 };
}

/** A worker in a fresh process over that schedule: what it holds is what the pending rows cost. */
async function idle(file) {
  const worker = new Dispatcher({ database: file, concurrency: 50, allowInsecureUrls: true, logger: false, pollIntervalMs: 50 });
  await worker.start();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const rssMB = process.memoryUsage().rss / 2 ** 20;
  const stillPending = (await worker.deliveries.list({ status: 'retrying', limit: 1 })).length;
  await worker.stop();
  await worker.close();
  return { rssMB, stillPending };
}

try {
  const file = port; // fill and idle take the database file as their third argument
  const run = { throughput, isolation: () => isolation(port), fill: () => fill(file), idle: () => idle(file) }[mode];
  if (!run) throw new Error(`unknown mode ${mode}`);
  console.log(JSON.stringify(await run()));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (mode === 'isolation') process.exit(0);
