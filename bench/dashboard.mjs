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
import { EVENT_TYPES } from '../dist/index.js';
import { sqliteDispatchStore } from '../dist/sqlite.js';
import { createTestEvent } from '../dist/testing.js';

const attempts = Number(process.argv[2]);
const ATTEMPTS_PER_DELIVERY = 4;
const SAMPLES = 60;
const WARMUP = 5;
const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-bench-dashboard-'));
const file = join(dir, 'dispatch.db');
const START = Date.UTC(2026, 10, 1);
const WEBHOOKS = ['wh_bench_a', 'wh_bench_b', 'wh_bench_c'];

/** One attempt's answer: mostly delivered at the last one, some 5xx, 4xx and timeouts on the way. */
function answer(delivery, number) {
  const last = number === ATTEMPTS_PER_DELIVERY;
  const kind = delivery % 10;
  if (last && kind < 7) return { status: 200, error: null };
  if (kind === 7) return { status: null, error: 'timeout' };
  if (kind === 8) return { status: 404, error: 'http_status' };
  return { status: 503, error: 'http_status' };
}

async function fill() {
  const store = sqliteDispatchStore(file);
  await store.ready();
  for (const id of WEBHOOKS) {
    await store.insertWebhook({
      id, url: `https://${id}.example.com/hooks`, events: ['*'], headers: {}, secret: 'whsec_bench', rate_limit: null, created_at: START, updated_at: START,
      status: 'active', failure_streak: 0, failing_since: null, last_failure_at: null, delivered_streak: 0, disabled_at: null, disabled_reason: null,
    });
  }
  const deliveries = attempts / ATTEMPTS_PER_DELIVERY;
  const ids = { events: [], correlations: [] };
  for (let first = 0; first < deliveries; first += 500) {
    const batch = [];
    for (let index = first; index < Math.min(deliveries, first + 500); index++) batch.push(oneDelivery(store, index, ids));
    await Promise.all(batch);
  }
  await store.close();
  return ids;
}

async function oneDelivery(store, index, ids) {
  const event = createTestEvent(EVENT_TYPES[index % EVENT_TYPES.length]);
  const created = START + index * 60_000;
  const deliveryId = `dlv_bench_${index}`;
  const webhookId = WEBHOOKS[index % WEBHOOKS.length];
  await store.insertEvent(
    { id: event.id, type: event.type, payload: JSON.stringify(event), correlation_id: event.correlation_id, test: false, created_at: created },
    [{ id: deliveryId, webhook_id: webhookId, next_attempt_at: created }],
  );
  if (index % 997 === 0) {
    ids.events.push(event.id);
    ids.correlations.push(event.correlation_id);
  }
  for (let number = 1; number <= ATTEMPTS_PER_DELIVERY; number++) {
    const { status, error } = answer(index, number);
    const at = created + number * 60_000;
    await store.recordAttempt(deliveryId, (current, health) => {
      const delivered = status !== null && status < 300;
      const finished = delivered || (number === ATTEMPTS_PER_DELIVERY && index % 10 === 9);
      return {
        attempt: {
          id: `att_bench_${index}_${number}`, delivery_id: deliveryId, webhook_id: webhookId, url: `https://${webhookId}.example.com/hooks`,
          event_id: event.id, event_type: event.type, attempt_number: number, attempted_at: at, response_status: status,
          response_time_ms: 40, receiver_ip: '203.0.113.7', correlation_id: event.correlation_id, request_payload: '',
          response_body: status === null ? null : '{"ok":false}', response_body_truncated: false, error_kind: error,
          error_message: error === null ? null : 'bench', manual: false, test: false,
        },
        delivery: {
          ...current,
          status: delivered ? 'delivered' : finished ? 'finally_failed' : 'retrying',
          attempt_count: number,
          automatic_attempt_count: number,
          next_attempt_at: finished ? null : at + 300_000,
          lease_owner: null,
          lease_until: null,
          updated_at: at,
        },
        // The registration's health is not what this benchmark measures: kept as it is.
        health,
        alerts: [],
      };
    });
  }
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
