// The dashboard's benchmark, run in a fresh process by bench/run.mjs:
//   node bench/dashboard.mjs <attempts>
// fills a dispatcher's SQLite file with <attempts> attempts (4 per delivery, through the store's
// own methods: not timed), then times the deliveries list page, rendered by the dashboard
// in-process (server time: routing, queries, HTML), without and with filters. Prints the p95 and
// median per view in ms.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dashboardFetchHandler } from '../dist/dashboard.js';
import { Dispatcher } from '../dist/dispatcher.js';
import { sqliteDispatchStore } from '../dist/sqlite.js';
import { ATTEMPTS_PER_DELIVERY, fillDispatchStore, START } from './lib/dashboard-fill.mjs';

const attempts = Number(process.argv[2]);
const SAMPLES = 60;
const WARMUP = 5;
const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-bench-dashboard-'));
const file = join(dir, 'dispatch.db');

async function fill() {
  const store = sqliteDispatchStore(file);
  const ids = await fillDispatchStore(store, attempts);
  await store.close();
  return ids;
}

const fillStart = performance.now();
const ids = await fill();
const fillSeconds = (performance.now() - fillStart) / 1000;

const dispatcher = new Dispatcher({ database: file, logger: false });
const board = dashboardFetchHandler({ dispatcher, authorize: () => true, basePath: '/dash' });
const middle = new Date(START + (attempts / ATTEMPTS_PER_DELIVERY / 2) * 60_000).toISOString().slice(0, 19);
const VIEWS = {
  'no filter, page 1': '',
  'no filter, page 100': 'page=100',
  'status = retrying': 'status=retrying',
  'status = finally_failed, event type invoice.*': 'status=finally_failed&event_type=invoice.*',
  'last HTTP status 5xx': 'http=5xx',
  'registration + created in a 2-day range': `webhook_id=wh_bench_b&from=${middle}&to=${new Date(Date.parse(`${middle}Z`) + 2 * 86_400_000).toISOString().slice(0, 19)}`,
  'search by event id': () => `q=${ids.events[Math.floor(Math.random() * ids.events.length)]}`,
  'search by correlation id': () => `q=${ids.correlations[Math.floor(Math.random() * ids.correlations.length)]}`,
};

const results = {};
for (const [name, query] of Object.entries(VIEWS)) {
  const times = [];
  for (let sample = 0; sample < WARMUP + SAMPLES; sample++) {
    const search = typeof query === 'function' ? query() : query;
    const start = performance.now();
    const response = await board(new globalThis.Request(`http://127.0.0.1/dash/deliveries${search ? `?${search}` : ''}`));
    const html = await response.text();
    const ms = performance.now() - start;
    if (response.status !== 200 || !html.includes('deliveries · page')) throw new Error(`${name}: status ${response.status}`);
    if (sample >= WARMUP) times.push(ms);
  }
  times.sort((a, b) => a - b);
  results[name] = { p95: times[Math.ceil(times.length * 0.95) - 1], median: times[Math.floor(times.length / 2)] };
}
const totalDeliveries = await dispatcher.deliveries.count();
await dispatcher.close();
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ attempts, deliveries: totalDeliveries, fillSeconds, views: results }));
