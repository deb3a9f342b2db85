// Every page of the dashboard over a full log, on SQLite or PostgreSQL, run in a fresh process by
// bench/run.mjs:
//   node bench/dashboard-pages.mjs <attempts> <events> <sqlite|postgres> [postgres-url]
// fills a dispatcher's store with <attempts> attempts and a receiver's store with <events>
// received events over the 7 days before the log ends (through the stores' own methods: not
// timed), then renders each page in-process on a clock at the log's end (server time: routing,
// queries, HTML): the overview's charts over 24 hours and 7 days, the registrations with their
// health, one registration, one delivery with its timeline, received events and the inbox. Prints
// the p95 and median per page in ms.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { dashboardFetchHandler } from '../dist/dashboard.js';
import { Dispatcher } from '../dist/dispatcher.js';
import { createReceiver, Webhooks } from '../dist/index.js';
import { postgresDispatchStore, postgresStore } from '../dist/postgres.js';
import { sqliteDispatchStore, sqliteStore } from '../dist/sqlite.js';
import { ATTEMPTS_PER_DELIVERY, dispatchEnd, fillDispatchStore, fillReceiverStore } from './lib/dashboard-fill.mjs';

const [attemptsArg, eventsArg, backend = 'sqlite', url = 'postgres://postgres@127.0.0.1:5432/test'] = process.argv.slice(2);
const attempts = Number(attemptsArg);
const events = Number(eventsArg);
const SAMPLES = 40;
const WARMUP = 5;
const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-bench-dashboard-pages-'));
const schema = `bench_dashboard_${process.pid}`;

// A loaded machine may take a while to open a connection.
const CONNECT_TIMEOUT_MS = 60_000;
// PostgreSQL's fill goes through the stores' own methods on a pool of its own whose sessions do
// not wait for each commit's flush to disk (synchronous_commit off: the same rows, written without
// a flush each); the pages are then timed on stores opened from the URL, as an application opens them.
const stores = backend === 'postgres'
  ? {
      dispatch: (target) => postgresDispatchStore(target ?? url, { schema, ...(target ? {} : { connectTimeoutMs: CONNECT_TIMEOUT_MS }) }),
      received: (target) => postgresStore(target ?? url, { schema, ...(target ? {} : { connectTimeoutMs: CONNECT_TIMEOUT_MS }) }),
    }
  : { dispatch: () => sqliteDispatchStore(join(dir, 'dispatch.db')), received: () => sqliteStore(join(dir, 'events.db')) };

const end = dispatchEnd(attempts);
const fillStart = performance.now();
const fillPool = backend === 'postgres'
  ? new pg.Pool({ connectionString: url, max: 20, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, options: '-c synchronous_commit=off' })
  : undefined;
const dispatchFill = stores.dispatch(fillPool);
await fillDispatchStore(dispatchFill, attempts);
const receivedFill = stores.received(fillPool);
await fillReceiverStore(receivedFill, events, end);
await dispatchFill.close();
await receivedFill.close();
if (fillPool) {
  // What autovacuum does soon after so many inserts (autovacuum_vacuum_insert_threshold), done
  // now: the statistics, and the visibility map that lets a count read an index alone. Right after
  // the fill every row is still checked in its table, and the plans' estimates are high enough for
  // JIT compilation (jit_above_cost) to add some 30 ms to a chart's query.
  const { rows } = await fillPool.query('SELECT tablename FROM pg_tables WHERE schemaname = $1', [schema]);
  for (const { tablename } of rows) await fillPool.query(`VACUUM ANALYZE "${schema}"."${tablename}"`);
  await fillPool.end();
}
const fillSeconds = (performance.now() - fillStart) / 1000;
const dispatchStore = stores.dispatch();
const receivedStore = stores.received();

const clock = () => end;
const dispatcher = new Dispatcher({ store: dispatchStore, clock, logger: false });
const receiver = createReceiver({ secret: 'whsec_bench_dashboard_pages_0000000', handlers: new Webhooks(), store: receivedStore, clock, logger: false });
const board = dashboardFetchHandler({ dispatcher, receiver, authorize: () => true, basePath: '/dash', clock });
const lastDelivery = `dlv_bench_${attempts / ATTEMPTS_PER_DELIVERY - 1}`;
/** A page in the middle of the inbox's done events (page 20 of about 50 over 100 000 events). */
const donePage = Math.max(1, Math.floor(events / 5_000));
const PAGES = {
  'overview, 24 hours': ['/', 'chart-deliveries'],
  'overview, 7 days': ['/?range=7d', 'chart-received'],
  'registrations with health': ['/webhooks', 'class="spark"'],
  'one registration': ['/webhooks/wh_bench_b', 'Health, last 24 hours'],
  'one delivery with its timeline': [`/deliveries/${lastDelivery}`, 'timeline-summary'],
  'deliveries, page 1': ['/deliveries', 'deliveries · page'],
  'received events, page 100': ['/receiver/events?page=100', 'Received events'],
  'inbox': ['/receiver/inbox', 'events · page'],
  [`inbox, done, page ${donePage}`]: [`/receiver/inbox?status=done&page=${donePage}`, `events · page ${donePage}`],
  'inbox, one type': ['/receiver/inbox?type=invoice.paid', 'events · page'],
};

const results = {};
for (const [name, [path, expected]] of Object.entries(PAGES)) {
  const times = [];
  for (let sample = 0; sample < WARMUP + SAMPLES; sample++) {
    const start = performance.now();
    const response = await board(new globalThis.Request(`http://127.0.0.1/dash${path}`));
    const html = await response.text();
    const ms = performance.now() - start;
    if (response.status !== 200 || !html.includes(expected)) throw new Error(`${name}: status ${response.status}, ${expected} missing`);
    if (sample >= WARMUP) times.push(ms);
  }
  times.sort((a, b) => a - b);
  results[name] = { p95: times[Math.ceil(times.length * 0.95) - 1], median: times[Math.floor(times.length / 2)] };
}
await receiver.close();
await dispatcher.close();
await dispatchStore.close();
await receivedStore.close();
rmSync(dir, { recursive: true, force: true });
if (backend === 'postgres') {
  const cleanup = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  await cleanup.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await cleanup.end();
}
console.log(JSON.stringify({ backend, attempts, events, fillSeconds, pages: results }));
