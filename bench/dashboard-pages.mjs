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

const stores = backend === 'postgres'
  ? { dispatch: () => postgresDispatchStore(url, { schema }), received: () => postgresStore(url, { schema }) }
  : { dispatch: () => sqliteDispatchStore(join(dir, 'dispatch.db')), received: () => sqliteStore(join(dir, 'events.db')) };

const end = dispatchEnd(attempts);
const fillStart = performance.now();
const dispatchStore = stores.dispatch();
await fillDispatchStore(dispatchStore, attempts);
const receivedStore = stores.received();
await fillReceiverStore(receivedStore, events, end);
const fillSeconds = (performance.now() - fillStart) / 1000;

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
console.log(JSON.stringify({ backend, attempts, events, fillSeconds, pages: results }));
