// Statements and round trips per delivery of one PostgreSQL dispatcher worker: what
// bench/postgres-dispatch.mjs's throughput is made of, counted rather than timed (so it is the
// same on a busy machine). Not part of npm test; loopback only.
//
//   npm run build && node bench/postgres-statements.mjs [--deliveries 2000] [--concurrency 50]
//                                                       [--url postgres://postgres@127.0.0.1:5432/test]
//                                                       [--auto-explain]
//
// --auto-explain loads auto_explain on the worker's connections (a superuser's, as in the default
// URL): every statement's plan with its timings, buffers and WAL goes to the server's log
// (/var/log/postgresql/ on Debian), for a look at where PostgreSQL's time goes.
//
// The worker's store gets a pg.Pool whose every query (on the pool or on a checked-out
// connection) is counted: a query is one round trip, and one text may hold several statements
// (a simple-protocol "BEGIN; …"), counted apart.
//
// It also reports the CPU seconds per 1 000 deliveries of the worker's PostgreSQL backends (read
// from /proc/<pid>/stat of each backend pid the pool's connections report; PostgreSQL must run on
// this machine) and of this process (the worker and the receiver), and the rows, index entries and
// WAL the run wrote: CPU seconds and counts hold on a busy machine, wall-clock time does not.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Dispatcher } from '../dist/dispatcher.js';
import { postgresDispatchStore } from '../dist/postgres.js';
import { createTestEvent } from '../dist/testing.js';

const { values } = parseArgs({
  options: {
    deliveries: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '50' },
    url: { type: 'string', default: process.env.ACCT_WEBHOOK_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    'auto-explain': { type: 'boolean', default: false },
  },
});
const AUTO_EXPLAIN = [
  'session_preload_libraries=auto_explain',
  'auto_explain.log_min_duration=0',
  'auto_explain.log_analyze=on',
  'auto_explain.log_buffers=on',
  'auto_explain.log_wal=on',
  'auto_explain.log_nested_statements=on',
  'auto_explain.log_triggers=on',
].map((setting) => `-c ${setting}`).join(' ');
const deliveries = Number(values.deliveries);
const schema = `acct_statements_${randomBytes(5).toString('hex')}`;

let delivered = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    delivered++;
    res.writeHead(204).end();
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/hook`;

const admin = new pg.Pool({ connectionString: values.url, max: 4 });
const setup = new Dispatcher({ store: postgresDispatchStore(admin, { schema }), allowInsecureUrls: true, logger: false });
await setup.webhooks.create({ url, events: ['*'] });
for (let i = 0; i < deliveries; i += 100) {
  await Promise.all(Array.from({ length: Math.min(100, deliveries - i) }, () => setup.emit(createTestEvent('invoice.paid'))));
}
await setup.close();

// The counted pool of the worker.
const counts = { roundTrips: 0, statements: 0, byKind: new Map() };
const count = (config) => {
  const text = typeof config === 'string' ? config : config.text;
  counts.roundTrips++;
  for (const statement of text.split(';').map((part) => part.trim()).filter(Boolean)) {
    counts.statements++;
    const kind = statement.split(/\s+/).slice(0, 2).join(' ').slice(0, 40);
    counts.byKind.set(kind, (counts.byKind.get(kind) ?? 0) + 1);
  }
};
const pool = new pg.Pool({ connectionString: values.url, max: Number(values.concurrency) + 2, ...(values['auto-explain'] ? { options: AUTO_EXPLAIN } : {}) });
pool.on('error', () => undefined);
// pool.query checks a connection out too (with a callback): every query goes through a client.
const ticks = Number(process.env.CLK_TCK ?? 100);
/** utime + stime of a process, in seconds (0 once it has exited). */
const cpuOf = (pid) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ticks;
  } catch {
    return 0;
  }
};
/** Each backend of the worker's pool (by pid) with its CPU seconds when the connection was first seen. */
const backendCpu = new Map();
const wrap = (client) => {
  if (client && !client.counted) {
    if (typeof client.processID === 'number' && !backendCpu.has(client.processID)) backendCpu.set(client.processID, cpuOf(client.processID));
    const clientQuery = client.query.bind(client);
    client.query = (config, ...rest) => {
      count(config);
      return clientQuery(config, ...rest);
    };
    client.counted = true;
  }
  return client;
};
const connect = pool.connect.bind(pool);
pool.connect = (callback) => {
  if (callback) return connect((error, client, release) => callback(error, wrap(client), release));
  return connect().then(wrap);
};

const worker = new Dispatcher({ store: postgresDispatchStore(pool, { schema }), concurrency: Number(values.concurrency), allowInsecureUrls: true, logger: false });
await worker.ready();
const tableStats = async () =>
  (await admin.query(`SELECT relname, n_tup_ins::int AS ins, n_tup_upd::int AS upd, n_tup_hot_upd::int AS hot FROM pg_stat_user_tables WHERE schemaname = $1`, [schema])).rows;
const walBytes = async () => Number((await admin.query('SELECT pg_current_wal_insert_lsn() - $1::pg_lsn AS bytes', ['0/0'])).rows[0].bytes);
// Warm every connection the worker may use, so that each backend's pid is known before the clock.
const warm = await Promise.all(Array.from({ length: Number(values.concurrency) + 2 }, () => pool.connect()));
for (const client of warm) client.release();
for (const pid of backendCpu.keys()) backendCpu.set(pid, cpuOf(pid));
const walBefore = await walBytes();
const ownBefore = process.cpuUsage();
counts.roundTrips = 0;
counts.statements = 0;
counts.byKind.clear();
const started = performance.now();
await worker.start();
while (delivered < deliveries) await new Promise((resolve) => setTimeout(resolve, 5));
const seconds = (performance.now() - started) / 1000;
const own = process.cpuUsage(ownBefore);
const backendSeconds = [...backendCpu].reduce((sum, [pid, before]) => sum + cpuOf(pid) - before, 0);
await worker.close();
// The statistics collector reports a backend's counts when it goes idle or exits.
await pool.end();
await new Promise((resolve) => setTimeout(resolve, 1200));
const writes = await tableStats();
const wal = (await walBytes()) - walBefore;
await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
await admin.end();
server.close();

console.log(`${deliveries} deliveries, concurrency ${values.concurrency}, ${(deliveries / seconds).toFixed(0)}/s on this run (timing: noisy)`);
console.log(`round trips per delivery: ${(counts.roundTrips / deliveries).toFixed(3)}; statements per delivery: ${(counts.statements / deliveries).toFixed(3)}`);
const perK = (value) => ((value * 1000) / deliveries).toFixed(2);
console.log(`CPU seconds per 1 000 deliveries: PostgreSQL backends ${perK(backendSeconds)} (${backendCpu.size} connections); this process (worker + receiver) ${perK((own.user + own.system) / 1e6)}`);
console.log(`WAL per delivery: ${(wal / deliveries).toFixed(0)} bytes (the whole server's during the run, setup excluded)`);
console.table(writes.map((row) => ({ table: row.relname, 'inserts (setup included)': row.ins, updates: row.upd, 'HOT updates': row.hot })));
console.table([...counts.byKind].sort((a, b) => b[1] - a[1]).map(([kind, n]) => ({ statement: kind, 'per delivery': (n / deliveries).toFixed(3) })));
