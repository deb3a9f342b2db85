// The capacity benchmark of the PostgreSQL scale-out path (docs/postgres.md, docs/performance.md).
// Not part of npm test; loopback only.
//
//   npm run build && node bench/capacity.mjs [--rates 50,200,1000] [--seconds 5] [--workers 1,2]
//                                            [--url postgres://postgres@127.0.0.1:5432/test]
//
// Dispatch path: a separate emitting process calls dispatcher.emit at a fixed arrival rate into
// PostgreSQL; 1 or 2 worker processes (default pollIntervalMs, 1 s: they are woken by NOTIFY)
// deliver to a local receiver in this process. Inbox path: a separate storing process puts
// events into the PostgreSQL inbox at the same rate (what a receiver in inbox mode stores), and 1
// or 2 receiver processes in inbox mode run a handler for each.
//
// Per run: p50/p95/p99 of emit → delivered (stored → handled), deliveries/s, and CPU seconds per
// 1 000 deliveries in the workers and in the PostgreSQL server, from /proc (utime + stime of the
// worker processes, and of every `postgres` process on the machine: on a shared machine the
// server's share includes other work). A ledger must balance or the run is void: every emitted
// event delivered (handled) exactly once, none lost, counted on the receiving side.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';

const self = fileURLToPath(import.meta.url);
const print = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** The targets, at 200/s across processes with the default poll interval. */
const TARGETS = { rate: 200, p50Ms: 20, p99Ms: 100 };
/** /proc/<pid>/stat counts CPU time in clock ticks; 100 a second on Linux. */
const CLOCK_TICKS = 100;

const role = process.argv[2];
if (role === '--emitter') await emitter(process.argv.slice(3));
else if (role === '--worker') await worker(process.argv.slice(3));
else if (role === '--storer') await storer(process.argv.slice(3));
else if (role === '--handler') await handler(process.argv.slice(3));
else await main();

/** Waits for one line on stdin (the start signal). */
function signal() {
  return new Promise((resolve) => createInterface({ input: process.stdin }).once('line', resolve));
}

/** Calls `send(i)` for i < count at `rate` a second from now, without waiting for each; resolves when all settled. */
async function paced(rate, count, send) {
  const started = now();
  const pending = [];
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - now();
    if (wait > 1) await sleep(wait);
    pending.push(send(i));
  }
  return Promise.all(pending);
}

/** `--emitter <url> <schema> <rate> <count>`: emits at the rate, prints { emitted: [[id, ms]…] }. */
async function emitter([url, schema, rate, count]) {
  const { Dispatcher } = await import('../dist/dispatcher.js');
  const { postgresDispatchStore } = await import('../dist/postgres.js');
  const { createTestEvent } = await import('../dist/testing.js');
  const dispatcher = new Dispatcher({ store: postgresDispatchStore(url, { schema, poolSize: 16 }), allowInsecureUrls: true, logger: false });
  await dispatcher.ready();
  print({ ready: true });
  await signal();
  const emitted = await paced(Number(rate), Number(count), async () => {
    const at = now();
    // A refused emit (the pool's wait ran out on an overloaded machine) is counted, not thrown.
    const event = await dispatcher.emit(createTestEvent('invoice.paid')).catch(() => null);
    return [event?.id ?? null, at, now() - at];
  });
  print({ emitted });
  await dispatcher.close();
}

/** `--worker <url> <schema>`: a dispatcher worker with the defaults (poll 1 s, concurrency 50). */
async function worker([url, schema]) {
  const { Dispatcher } = await import('../dist/dispatcher.js');
  const { postgresDispatchStore } = await import('../dist/postgres.js');
  const store = postgresDispatchStore(url, { schema, poolSize: 12 });
  const dispatcher = new Dispatcher({ store, allowInsecureUrls: true, logger: false });
  await dispatcher.start();
  print({ ready: true });
  process.on('SIGTERM', async () => {
    await dispatcher.close();
    await store.close();
    process.exit(0);
  });
}

/** `--storer <url> <schema> <rate> <count>`: stores events in the inbox at the rate. */
async function storer([url, schema, rate, count]) {
  const { postgresStore } = await import('../dist/postgres.js');
  const { createTestEvent, signedRequest } = await import('../dist/testing.js');
  const store = postgresStore(url, { schema, poolSize: 16 });
  await store.ready();
  print({ ready: true });
  await signal();
  const stored = await paced(Number(rate), Number(count), async () => {
    const { body, headers } = signedRequest(createTestEvent('customer.created'), 'whsec_capacityBench000000000000000');
    const id = JSON.parse(body).id;
    const at = now();
    const result = await store.inbox
      .enqueue({ eventId: id, eventType: 'customer.created', rawBody: Buffer.from(body), headers, verified: { secretIndex: 0, signatureScheme: 'v1' }, receivedAt: Date.now(), created: Date.now(), version: null })
      .catch(() => null);
    return [result?.status === 'queued' ? id : null, at, now() - at];
  });
  print({ emitted: stored });
  await store.close();
}

/** `--handler <url> <schema>`: a receiver in inbox mode (defaults: poll 1 s); prints what it handled on SIGTERM. */
async function handler([url, schema]) {
  const { createReceiver, Webhooks } = await import('../dist/index.js');
  const { postgresStore } = await import('../dist/postgres.js');
  const handled = [];
  const receiver = createReceiver({
    secret: 'whsec_capacityBench000000000000000',
    store: postgresStore(url, { schema, poolSize: 12 }),
    logger: false,
    inbox: true,
    handlers: new Webhooks().onAny((event) => void handled.push([event.id, now()])),
  });
  await receiver.ready();
  print({ ready: true });
  process.on('SIGTERM', async () => {
    await receiver.close();
    await receiver.store.close();
    // Exits once the line is written: stdout to a pipe is asynchronous, and a long list cut short
    // by process.exit would void the ledger.
    process.stdout.write(`${JSON.stringify({ handled })}\n`, () => process.exit(0));
  });
}

/** utime + stime of a process, in seconds; 0 once it is gone. */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** The pids of every `postgres` process on the machine. */
function postgresPids() {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
      } catch {
        return false;
      }
    });
}

/** CPU seconds of the PostgreSQL server so far, summed over its processes (the ones that ended are lost: read before and after). */
function serverCpu() {
  const perPid = new Map(postgresPids().map((pid) => [pid, cpuSeconds(pid)]));
  return perPid;
}

function serverCpuBetween(before, after) {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}

function start(args) {
  const child = spawn(process.execPath, [self, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = [];
  const waiting = [];
  createInterface({ input: child.stdout }).on('line', (text) => {
    const line = JSON.parse(text);
    lines.push(line);
    for (const waiter of waiting.splice(0)) waiter();
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    child,
    async line(key) {
      for (;;) {
        const found = lines.find((line) => key in line);
        if (found) return found;
        if (child.exitCode !== null) throw new Error(`${args[0]} exited before printing ${key}`);
        await Promise.race([new Promise((resolve) => waiting.push(resolve)), exited]);
      }
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** One run: `path` 'dispatch' or 'inbox', `workers` processes, `rate` a second for `seconds`. */
async function run({ path, workers, rate, seconds, url, admin }) {
  const schema = `acct_capacity_${randomBytes(5).toString('hex')}`;
  const count = Math.round(rate * seconds);
  const arrivals = new Map();
  let server;
  try {
    let receiverUrl = null;
    if (path === 'dispatch') {
      server = createServer((req, res) => {
        const chunks = [];
        req.on('data', (chunk) => chunks.push(chunk));
        req.on('end', () => {
          const at = now();
          const { id } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          arrivals.set(id, [...(arrivals.get(id) ?? []), at]);
          res.writeHead(204).end();
        });
      });
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      receiverUrl = `http://127.0.0.1:${server.address().port}/hook`;
      const { Dispatcher } = await import('../dist/dispatcher.js');
      const { postgresDispatchStore } = await import('../dist/postgres.js');
      const setup = new Dispatcher({ store: postgresDispatchStore(admin, { schema }), allowInsecureUrls: true, logger: false });
      await setup.webhooks.create({ url: receiverUrl, events: ['*'] });
      await setup.close();
    }
    const source = start([path === 'dispatch' ? '--emitter' : '--storer', url, schema, String(rate), String(count)]);
    await source.line('ready');
    const sinks = [];
    for (let i = 0; i < workers; i++) {
      const sink = start([path === 'dispatch' ? '--worker' : '--handler', url, schema]);
      await sink.line('ready');
      sinks.push(sink);
    }
    const cpuBefore = sinks.map((sink) => cpuSeconds(sink.child.pid));
    const serverBefore = serverCpu();
    const started = now();
    source.child.stdin.write('go\n');
    const { emitted: all } = await source.line('emitted');
    const emitted = all.filter(([id]) => id !== null);
    const refused = all.length - emitted.length;
    const emitMs = emitted.map(([, , ms]) => ms ?? 0).sort((a, b) => a - b);
    const done = async () => {
      if (path === 'dispatch') return arrivals.size >= emitted.length;
      const { rows } = await admin.query(`SELECT COUNT(*)::int AS n FROM "${schema}".acct_webhook_inbox WHERE status = 'done'`);
      return rows[0].n >= emitted.length;
    };
    const deadline = now() + 60_000;
    while (!(await done()) && now() < deadline) await sleep(5);
    const elapsed = (now() - started) / 1000;
    const workerCpu = sinks.reduce((sum, sink, i) => sum + cpuSeconds(sink.child.pid) - cpuBefore[i], 0);
    const postgresCpu = serverCpuBetween(serverBefore, serverCpu());
    // A little longer, so that a duplicate would still arrive before the ledger is closed.
    await sleep(300);
    for (const sink of sinks) sink.child.kill('SIGTERM');
    if (path === 'inbox') {
      for (const sink of sinks) for (const [id, at] of (await sink.line('handled')).handled) arrivals.set(id, [...(arrivals.get(id) ?? []), at]);
    }
    await Promise.all(sinks.map((sink) => sink.stop()));
    await source.stop();

    // The ledger, from the receiving side.
    let lost = 0;
    let twice = 0;
    const latencies = [];
    for (const [id, at] of emitted) {
      const seen = arrivals.get(id) ?? [];
      if (seen.length === 0) lost++;
      if (seen.length > 1) twice++;
      if (seen.length > 0) latencies.push(seen[0] - at);
    }
    const strangers = [...arrivals.keys()].filter((id) => !emitted.some(([known]) => known === id)).length;
    latencies.sort((a, b) => a - b);
    const delivered = latencies.length;
    return {
      path,
      workers,
      rate,
      events: count,
      delivered,
      lost,
      twice,
      strangers,
      refused,
      balanced: refused === 0 && lost === 0 && twice === 0 && strangers === 0 && delivered === count,
      perSecond: Math.round(delivered / elapsed),
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      p99: percentile(latencies, 99),
      emitP50: percentile(emitMs, 50),
      emitP99: percentile(emitMs, 99),
      workerCpuPer1000: (workerCpu / delivered) * 1000,
      postgresCpuPer1000: (postgresCpu / delivered) * 1000,
    };
  } finally {
    server?.close();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      rates: { type: 'string', default: '50,200,1000' },
      seconds: { type: 'string', default: '5' },
      workers: { type: 'string', default: '1,2' },
      paths: { type: 'string', default: 'dispatch,inbox' },
      url: { type: 'string', default: process.env.ACCT_WEBHOOK_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    },
  });
  const rates = values.rates.split(',').map(Number);
  const workerCounts = values.workers.split(',').map(Number);
  const paths = values.paths.split(',');
  const admin = new pg.Pool({ connectionString: values.url, max: 2 });
  const results = [];
  try {
    for (const path of paths) {
      for (const workers of workerCounts) {
        for (const rate of rates) {
          const result = await run({ path, workers, rate, seconds: Number(values.seconds), url: values.url, admin });
          process.stderr.write(`${path}, ${workers} worker(s), ${rate}/s: p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, ${result.perSecond}/s, ledger ${result.balanced ? 'balanced' : 'VOID'}\n`);
          results.push(result);
        }
      }
    }
  } finally {
    await admin.end();
  }

  const ms = (value) => value.toFixed(1);
  console.log(`\nacct-webhook capacity: ${cpus().length} cores, ${values.seconds} s per rate, emitting/storing process separate from the workers\n`);
  console.log('| path | workers | rate/s | delivered/s | p50 ms | p95 ms | p99 ms | emit/store call p50 ms | emit/store call p99 ms | worker CPU s / 1 000 | PostgreSQL CPU s / 1 000 | ledger |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const r of results) {
    const ledger = r.balanced ? 'balanced' : `VOID (emits refused ${r.refused}, lost ${r.lost}, twice ${r.twice}, unknown ${r.strangers})`;
    console.log(`| ${r.path} | ${r.workers} | ${r.rate} | ${r.perSecond} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.p99)} | ${ms(r.emitP50)} | ${ms(r.emitP99)} | ${r.workerCpuPer1000.toFixed(2)} | ${r.postgresCpuPer1000.toFixed(2)} | ${ledger} |`);
  }

  // The capacity on paper, from the CPU measured at the highest balanced rate of one worker.
  console.log('\nCapacity on paper (CPU-bound, linear, from the one-worker run at the highest rate; see docs/postgres.md for the assumptions):\n');
  console.log('| path | deliveries/s | worker cores | PostgreSQL cores |');
  console.log('|---|---:|---:|---:|');
  for (const path of paths) {
    const basis = results.filter((r) => r.path === path && r.workers === workerCounts[0] && r.balanced).sort((a, b) => b.rate - a.rate)[0];
    if (!basis) continue;
    for (const target of [1_000, 10_000, 50_000]) {
      console.log(`| ${path} | ${target} | ${((target / 1000) * basis.workerCpuPer1000).toFixed(1)} | ${((target / 1000) * basis.postgresCpuPer1000).toFixed(1)} |`);
    }
  }

  const failures = [];
  for (const r of results) if (!r.balanced) failures.push(`${r.path} ${r.workers}w ${r.rate}/s: the ledger does not balance`);
  for (const r of results.filter((r) => r.rate === TARGETS.rate)) {
    if (r.p50 > TARGETS.p50Ms || r.p99 > TARGETS.p99Ms) failures.push(`${r.path} ${r.workers}w ${r.rate}/s: p50 ${ms(r.p50)} ms / p99 ${ms(r.p99)} ms over the target (${TARGETS.p50Ms} / ${TARGETS.p99Ms} ms)`);
  }
  console.log(failures.length === 0 ? `\nLedgers balanced; targets met (p50 ≤ ${TARGETS.p50Ms} ms, p99 ≤ ${TARGETS.p99Ms} ms at ${TARGETS.rate}/s).` : `\nFAILED: ${failures.join('; ')}`);
  print({ results });
  process.exitCode = failures.length === 0 ? 0 : 1;
}
