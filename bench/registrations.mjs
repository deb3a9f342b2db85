// The sending side's cost against how many registrations exist: N registrations over 50 000
// businesses (one of them, `biz_bench`, owns one registration subscribed to invoice.paid), then
// side by side per N: emit p50/p99 of biz_bench's invoice.paid, webhooks.count() (what the
// metrics gauge and the overview read), and the dashboard's registrations page and overview
// served over HTTP on 127.0.0.1 (p95).
// Usage: node bench/registrations.mjs [10,10000,100000] [emits] → one JSON line per N.
// (`npm run build` first: it runs the built package, as a user's process does.)
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Dispatcher } from '../dist/dispatcher.js';
import { dashboardNodeHandler } from '../dist/dashboard.js';
import { createTestEvent } from '../dist/testing.js';

const sizes = (process.argv[2] ?? '10,10000,100000').split(',').map(Number);
const emits = Number(process.argv[3] ?? 200);
const BUSINESSES = 50_000;
const percentile = (samples, p) => [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(samples.length * p))];
const round = (ms) => Math.round(ms * 1000) / 1000;

/** Copies the template registration `count` times with new ids and owners, in one transaction (as the store holds them). */
function fill(file, templateId, count) {
  const db = new Database(file);
  const columns = db.prepare('PRAGMA table_info(dispatch_webhooks)').all().map((column) => column.name);
  const others = columns.filter((name) => name !== 'id' && name !== 'business_id' && name !== 'events');
  const insert = db.prepare(`INSERT INTO dispatch_webhooks (id, business_id, events, ${others.join(', ')})
    SELECT @id, @business, @events, ${others.join(', ')} FROM dispatch_webhooks WHERE id = @template`);
  db.transaction(() => {
    for (let i = 0; i < count; i++) insert.run({ id: `wh_fill${i}`, business: `biz_${i % BUSINESSES}`, events: JSON.stringify(['customer.created']), template: templateId });
  })();
  db.close();
}

async function timed(samples, work) {
  const start = performance.now();
  await work();
  samples.push(performance.now() - start);
}

for (const size of sizes) {
  const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-bench-registrations-'));
  const file = join(dir, 'dispatch.db');
  const target = createServer((_request, response) => response.writeHead(204).end());
  await new Promise((resolve) => target.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${target.address().port}/hook`;
  const setup = new Dispatcher({ database: file, logger: false, allowInsecureUrls: true });
  const own = await setup.webhooks.create({ business_id: 'biz_bench', url, events: ['invoice.paid'] });
  await setup.close();
  fill(file, own.id, Math.max(0, size - 1));

  const dispatcher = new Dispatcher({ database: file, logger: false, allowInsecureUrls: true });
  const board = dashboardNodeHandler({ dispatcher, authorize: () => true });
  const server = createServer(board);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const emitMs = [];
  for (let i = 0; i < emits; i++) {
    const event = createTestEvent('invoice.paid', { business_id: 'biz_bench' });
    await timed(emitMs, () => dispatcher.emit(event));
  }
  const countMs = [];
  for (let i = 0; i < 20; i++) await timed(countMs, () => dispatcher.webhooks.count());
  const pageMs = { registrations: [], overview: [] };
  for (let i = 0; i < 20; i++) {
    await timed(pageMs.registrations, async () => (await fetch(`${origin}/webhooks`)).text());
    await timed(pageMs.overview, async () => (await fetch(`${origin}/`)).text());
  }
  console.log(JSON.stringify({
    registrations: size,
    emitP50Ms: round(percentile(emitMs, 0.5)),
    emitP99Ms: round(percentile(emitMs, 0.99)),
    countP50Ms: round(percentile(countMs, 0.5)),
    registrationsPageP95Ms: round(percentile(pageMs.registrations, 0.95)),
    overviewP95Ms: round(percentile(pageMs.overview, 0.95)),
    rssMiB: Math.round(process.memoryUsage().rss / 1024 / 1024),
  }));
  await new Promise((resolve) => server.close(resolve));
  await dispatcher.close();
  await new Promise((resolve) => target.close(resolve));
  rmSync(dir, { recursive: true, force: true });
}
