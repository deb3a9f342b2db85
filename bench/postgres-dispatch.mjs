// Deliveries per second of the Dispatcher with 1 and 2 worker processes, on PostgreSQL and on
// SQLite, measured in one run against one local receiver (loopback only). Not part of npm test.
//
//   npm run build && node bench/postgres-dispatch.mjs [--deliveries 5000] [--concurrency 10] [--rounds 3]
//                                                      [--workers 1,2] [--pool-size 10]
//                                                      [--url postgres://postgres@127.0.0.1:5432/test]
//
// --pool-size: each PostgreSQL worker's `poolSize`; by default the store's own default (10), what
// a user gets. (The bench used to give each worker `concurrency` + 2
// connections: 52 at `--concurrency 50`, more backends than one worker keeps busy, each planning
// the worker's statements anew, and 104 for two workers, over PostgreSQL's default
// max_connections of 100; bench/history.md.)
//
// --workers: which worker counts to run (both backends each). With both backends at one worker
// count, each round's PostgreSQL / SQLite ratio is printed too, and their median: the two runs of
// a round are seconds apart, so the machine's drift weighs less on the ratio than on the rates.
//
// Each configuration gets a fresh database (a SQLite file, a PostgreSQL schema) holding one
// webhook and `deliveries` due deliveries, queued before the clock starts. The workers are child
// processes built from dist/; they load, then all start at one signal. The time runs from that
// signal until every delivery is recorded as delivered. Configurations are interleaved round by
// round; the median of the rounds is reported.
//
// Beside the rate, the CPU seconds per 1 000 deliveries of the workers, of every `postgres`
// process on the machine (other sessions' included, so an upper bound) and of this process (the
// receiver), from /proc (utime + stime) over the same interval, and how many cores they kept busy
// together: CPU seconds hold on a busy machine, the rate does not.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Dispatcher } from '../dist/dispatcher.js';
import { postgresDispatchStore } from '../dist/postgres.js';
import { createTestEvent } from '../dist/testing.js';

const self = fileURLToPath(import.meta.url);
const print = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

if (process.argv[2] === '--worker') await worker(process.argv.slice(3));
else await main();

/** One worker process: `--worker <sqlite|postgres> <file|url> <schema> <concurrency> <pool size|default>`. */
async function worker([kind, target, schema, concurrency, poolSize]) {
  const pool = poolSize === 'default' ? {} : { poolSize: Number(poolSize) };
  const where = kind === 'postgres' ? { store: postgresDispatchStore(target, { schema, ...pool }) } : { database: target };
  const dispatcher = new Dispatcher({ ...where, concurrency: Number(concurrency), allowInsecureUrls: true, logger: false, pollIntervalMs: 50 });
  await dispatcher.webhooks.list(); // opens and migrates before the clock starts
  print({ loaded: true });
  await new Promise((resolve) => createInterface({ input: process.stdin }).once('line', resolve));
  await dispatcher.start();
  process.on('SIGTERM', async () => {
    await dispatcher.close();
    if (kind === 'postgres') await where.store.close();
    process.exit(0);
  });
}

async function main() {
  const { values } = parseArgs({
    options: {
      deliveries: { type: 'string', default: '5000' },
      concurrency: { type: 'string', default: '10' },
      'pool-size': { type: 'string', default: 'default' },
      rounds: { type: 'string', default: '3' },
      workers: { type: 'string', default: '1,2' },
      url: { type: 'string', default: process.env.ACCT_WEBHOOK_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    },
  });
  const poolSize = values['pool-size'];
  if (poolSize !== 'default' && !(Number.isInteger(Number(poolSize)) && Number(poolSize) > 0)) throw new Error('--pool-size: a whole number of connections');
  const settings = { deliveries: Number(values.deliveries), concurrency: Number(values.concurrency), rounds: Number(values.rounds), poolSize, url: values.url };
  const receiver = await startReceiver();
  const admin = new pg.Pool({ connectionString: settings.url, max: 2 });
  const workerCounts = values.workers.split(',').map(Number);
  if (workerCounts.some((count) => count !== 1 && count !== 2)) throw new Error('--workers: 1, 2 or 1,2');
  const configs = [
    { name: 'SQLite, 1 worker', kind: 'sqlite', workers: 1 },
    { name: 'SQLite, 2 workers', kind: 'sqlite', workers: 2 },
    { name: 'PostgreSQL, 1 worker', kind: 'postgres', workers: 1 },
    { name: 'PostgreSQL, 2 workers', kind: 'postgres', workers: 2 },
  ].filter((config) => workerCounts.includes(config.workers));
  const samples = new Map(configs.map((config) => [config.name, []]));
  const cpu = new Map(configs.map((config) => [config.name, []]));
  try {
    for (let round = 0; round < settings.rounds; round++) {
      for (const config of configs) {
        const { rate, usage } = await measure(config, settings, receiver, admin);
        samples.get(config.name).push(rate);
        cpu.get(config.name).push(usage);
        process.stderr.write(`round ${round + 1}: ${config.name}: ${Math.round(rate)} deliveries/s, CPU s / 1 000: workers ${usage.workers.toFixed(2)}, postgres ${usage.postgres.toFixed(2)}, receiver ${usage.receiver.toFixed(2)}; cores busy ${usage.cores.toFixed(2)}\n`);
      }
      for (const count of workerCounts) process.stderr.write(`round ${round + 1}: PostgreSQL / SQLite, ${count} worker(s): ${ratioOf(samples, count, round).toFixed(2)}\n`);
    }
  } finally {
    await admin.end();
    receiver.server.close();
  }
  const cpuMedian = (name, part) => median(cpu.get(name).map((usage) => usage[part])).toFixed(2);
  const rows = configs.map((config) => ({
    configuration: config.name,
    'deliveries/s (median)': Math.round(median(samples.get(config.name))),
    rounds: samples.get(config.name).map(Math.round).join(' '),
    'worker CPU s/1000': cpuMedian(config.name, 'workers'),
    'postgres CPU s/1000': cpuMedian(config.name, 'postgres'),
    'receiver CPU s/1000': cpuMedian(config.name, 'receiver'),
    'cores busy': cpuMedian(config.name, 'cores'),
  }));
  console.table(rows);
  const ratios = Object.fromEntries(workerCounts.map((count) => [`${count} worker(s)`, median(samples.get(nameOf('sqlite', count)).map((_, round) => ratioOf(samples, count, round))).toFixed(2)]));
  console.log(`PostgreSQL / SQLite, median of the rounds' ratios: ${Object.entries(ratios).map(([count, ratio]) => `${count} ${ratio}`).join(', ')}`);
  print({ settings: { ...settings, url: redact(settings.url) }, results: rows, ratios });
}

/** A configuration's name (as in `configs`). */
function nameOf(kind, workers) {
  return `${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, ${workers} worker${workers === 1 ? '' : 's'}`;
}

/** One round's PostgreSQL rate over its SQLite rate, at one worker count. */
function ratioOf(samples, workers, round) {
  return samples.get(nameOf('postgres', workers))[round] / samples.get(nameOf('sqlite', workers))[round];
}

async function measure(config, settings, receiver, admin) {
  const database = await prepare(config.kind, settings, receiver.url, admin);
  const workers = [];
  try {
    for (let i = 0; i < config.workers; i++) workers.push(await startWorker([config.kind, database.target, database.schema, String(settings.concurrency), settings.poolSize]));
    receiver.reset();
    const before = { workers: workers.map((child) => cpuOf(child.pid)), postgres: postgresCpu(), receiver: process.cpuUsage() };
    const started = performance.now();
    for (const child of workers) child.stdin.write('go\n');
    // The receiver's own count first (free): a count of delivered rows every 10 ms during the run
    // was PostgreSQL work of its own (a scan of a table full of updated rows) on the two cores the
    // worker and its database share. Once every request has arrived, the records are awaited.
    while (receiver.count() < settings.deliveries) await new Promise((resolve) => setTimeout(resolve, 5));
    while ((await database.delivered()) < settings.deliveries) await new Promise((resolve) => setTimeout(resolve, 5));
    const seconds = (performance.now() - started) / 1000;
    const receiverCpu = process.cpuUsage(before.receiver);
    const used = {
      workers: workers.reduce((sum, child, i) => sum + cpuOf(child.pid) - before.workers[i], 0),
      postgres: postgresCpuSince(before.postgres),
      receiver: (receiverCpu.user + receiverCpu.system) / 1e6,
    };
    if (receiver.count() !== settings.deliveries) throw new Error(`${config.name}: the receiver got ${receiver.count()} requests for ${settings.deliveries} deliveries`);
    const perThousand = (value) => (value * 1000) / settings.deliveries;
    const usage = { workers: perThousand(used.workers), postgres: perThousand(used.postgres), receiver: perThousand(used.receiver), cores: (used.workers + used.postgres + used.receiver) / seconds };
    return { rate: settings.deliveries / seconds, usage };
  } finally {
    await Promise.all(workers.map(stopWorker));
    await database.remove();
  }
}

/** A fresh database with one webhook and `deliveries` due deliveries to the receiver. */
async function prepare(kind, settings, url, admin) {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'acct-bench-dispatch-'));
    const file = join(dir, 'dispatch.db');
    await queue({ database: file }, settings.deliveries, url);
    const reader = new Database(file, { readonly: true });
    const delivered = reader.prepare("SELECT COUNT(*) AS n FROM dispatch_deliveries WHERE status = 'delivered'");
    return {
      target: file,
      schema: '-',
      delivered: () => Promise.resolve(delivered.get().n),
      remove: () => {
        reader.close();
        rmSync(dir, { recursive: true, force: true });
        return Promise.resolve();
      },
    };
  }
  const schema = `acct_bench_${randomBytes(6).toString('hex')}`;
  const store = postgresDispatchStore(admin, { schema });
  await queue({ store }, settings.deliveries, url);
  return {
    target: settings.url,
    schema,
    delivered: async () => (await admin.query(`SELECT COUNT(*)::int AS n FROM "${schema}".dispatch_deliveries WHERE status = 'delivered'`)).rows[0].n,
    remove: async () => void (await admin.query(`DROP SCHEMA "${schema}" CASCADE`)),
  };
}

/** `where`: the Dispatcher's `database` or `store` option. */
async function queue(where, deliveries, url) {
  const dispatcher = new Dispatcher({ ...where, allowInsecureUrls: true, logger: false });
  await dispatcher.webhooks.create({ url, events: ['*'] });
  for (let i = 0; i < deliveries; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, deliveries - i) }, () => dispatcher.emit(createTestEvent('invoice.paid'))));
  }
  await dispatcher.close();
}

async function startReceiver() {
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.writeHead(204).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}/hook`, count: () => count, reset: () => (count = 0) };
}

async function startWorker(args) {
  const child = spawn(process.execPath, [self, '--worker', ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`a worker exited with ${code} before loading`)));
  });
  return child;
}

async function stopWorker(child) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** utime + stime of a process in seconds (USER_HZ is 100 on Linux), 0 when it is gone. */
function cpuOf(pid) {
  const ticks = 100;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ticks;
  } catch {
    return 0;
  }
}

/** CPU seconds of each process named postgres (server, backends, background workers), by pid. */
function postgresCpu() {
  const byPid = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') byPid.set(entry, cpuOf(entry));
    } catch {
      // gone meanwhile
    }
  }
  return byPid;
}

/** CPU seconds the postgres processes used between two readings: a process that ended in between is left out, one that started counts from 0. */
function postgresCpuSince(before) {
  let sum = 0;
  for (const [pid, seconds] of postgresCpu()) sum += Math.max(0, seconds - (before.get(pid) ?? 0));
  return sum;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function redact(url) {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
