// npm run bench: the receiver, the verifier, the parser, the store (and the dispatcher and the
// CLI) against their baselines and a peer, interleaved round by round, loopback only.
// Options: --smoke (tiny durations, one round; what `npm test` runs), --out <file>,
// --only <http|verifier|parser|store|dispatcher|inbox|dashboard|cli|cold-start>[,...],
// --baseline <dist directory>: the cold start of an older build (`git archive <commit>`, built) measured beside this one,
// --drivers better-sqlite3,node:sqlite: the store and HTTP measurements on SQLite once per driver,
// side by side (named after it), each driver against the first (the store's other checks use it),
// --configs express,fastify,hono: only the HTTP configurations whose name starts with one of these
// (and the targets between them), --pool <n>: signed requests pre-generated per load run (a loaded
// machine answers far fewer than the default 200 000 in a run, and generating them takes minutes).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { runChild, startChild, stop } from './lib/child.mjs';
import { ratio, summarize } from './lib/stats.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    out: { type: 'string' },
    only: { type: 'string' },
    drivers: { type: 'string' },
    baseline: { type: 'string' },
    configs: { type: 'string' },
    pool: { type: 'string' },
  },
});
/** The SQLite drivers to measure side by side; without --drivers, the package's automatic choice, unnamed. */
const drivers = values.drivers ? values.drivers.split(',') : undefined;
/** A SQLite measurement's name on `driver` (the first one listed, when not given). */
const onDriver = (name, driver = drivers?.[0]) => (driver ? `${name} on ${driver}` : name);
/** The minimum of a driver against the first: the one the package's default may change on (bench/history.md, the two SQLite drivers). */
const DRIVER_PARITY = 0.85;
const smoke = values.smoke;
const settings = smoke
  ? { rounds: 1, httpSeconds: 1, pool: 5_000, microMs: 60, connections: 20, deliveries: 500, pending: [100, 1_000], cliRuns: 2, dashboardAttempts: 2_000, dashboardEvents: 2_000, coldStarts: 2 }
  : { rounds: 3, httpSeconds: 5, pool: 200_000, microMs: 1_000, connections: 50, deliveries: 10_000, pending: [1_000, 100_000], cliRuns: 10, dashboardAttempts: 100_000, dashboardEvents: 100_000, coldStarts: 20 };
if (values.pool !== undefined) settings.pool = Number(values.pool);
const only = values.only ? new Set(values.only.split(',')) : undefined;
/** The HTTP configurations to run, by the start of their names; all without --configs. */
const configPrefixes = values.configs?.split(',');
const wanted = (group) => !only || only.has(group);

/** Registrations that accept connections and never answer, beside the healthy one. */
const HANGING_REGISTRATIONS = 3;
const results = [];
const ratios = [];
const checks = [];
const record = (group, name, unit, samples) => results.push({ group, name, unit, ...summarize(samples) });
const compare = (name, numerator, denominator, target) => {
  // A configuration left out with --configs: its targets are left out with it.
  if (numerator === undefined || denominator === undefined) return;
  const value = ratio(numerator, denominator);
  ratios.push({ name, target: `≥ ${target}`, met: value.median >= target, ...value });
};

async function http() {
  const configs = {
    'express bare': { server: 'express-bare.mjs', scheme: 'platform' },
    'express webhookHandler + sqliteStore': { server: 'express-webhook.mjs', scheme: 'platform' },
    'express @octokit/webhooks middleware': { server: 'express-octokit.mjs', scheme: 'github' },
    'fastify bare': { server: 'fastify-bare.mjs', scheme: 'platform' },
    'fastify fastifyWebhooks + sqliteStore': { server: 'fastify-webhook.mjs', scheme: 'platform' },
    'hono bare (@hono/node-server)': { server: 'hono-bare.mjs', scheme: 'platform' },
    'hono honoWebhooks + sqliteStore (@hono/node-server)': { server: 'hono-webhook.mjs', scheme: 'platform' },
    'node:http bare': { server: 'node-bare.mjs', scheme: 'platform' },
    'node:http nodeHandler + sqliteStore': { server: 'node-webhook.mjs', scheme: 'platform' },
    'express webhookHandler, inbox mode': { server: 'express-webhook-inbox.mjs', scheme: 'platform' },
    'node:http nodeHandler, inbox mode': { server: 'node-webhook-inbox.mjs', scheme: 'platform' },
    // PostgreSQL on the same machine (and cores) as the server and the load generator.
    'node:http nodeHandler + postgresStore': { server: 'node-webhook-postgres.mjs', scheme: 'platform' },
  };
  // The configurations on SQLite, once per driver when --drivers names them.
  const sqliteConfigs = [
    'express webhookHandler + sqliteStore',
    'fastify fastifyWebhooks + sqliteStore',
    'hono honoWebhooks + sqliteStore (@hono/node-server)',
    'node:http nodeHandler + sqliteStore',
    'express webhookHandler, inbox mode',
    'node:http nodeHandler, inbox mode',
  ];
  for (const name of drivers ? sqliteConfigs : []) {
    for (const driver of drivers) configs[onDriver(name, driver)] = { ...configs[name], driver };
    delete configs[name];
  }
  for (const name of Object.keys(configs)) {
    if (configPrefixes && !configPrefixes.some((prefix) => name.startsWith(prefix))) delete configs[name];
  }
  const samples = Object.fromEntries(Object.keys(configs).map((name) => [name, []]));
  const p99 = Object.fromEntries(Object.keys(configs).map((name) => [name, []]));
  for (let round = 0; round < settings.rounds; round++) {
    for (const [name, config] of Object.entries(configs)) {
      const env = config.driver ? { ACCT_WEBHOOK_BENCH_SQLITE_DRIVER: config.driver } : {};
      const { child, message } = await startChild(join(here, 'servers', config.server), [], { env });
      try {
        const load = await runChild(join(here, 'load.mjs'), [
          String(message.port),
          String(settings.httpSeconds),
          String(settings.connections),
          config.scheme,
          String(settings.pool),
        ]);
        if (load.non2xx > 0 || load.errors > 0) throw new Error(`${name}: ${load.non2xx} non-2xx answers, ${load.errors} errors`);
        // A reused request is a duplicate, which a receiver answers without running the handler
        // (the bare servers do not dedupe, so for them it makes no difference).
        if (load.reusedRequests > 0 && !smoke && !name.includes('bare')) throw new Error(`${name}: the request pool ran out; raise the pool size`);
        samples[name].push(load.rps);
        p99[name].push(load.p99Ms);
        progress(`${name}: ${Math.round(load.rps)} req/s (p99 ${load.p99Ms} ms)`);
      } finally {
        await stop(child);
      }
    }
  }
  for (const [name, list] of Object.entries(samples)) record('http', name, 'req/s', list);
  for (const inbox of ['express webhookHandler, inbox mode', 'node:http nodeHandler, inbox mode']) {
    for (const driver of drivers ?? [undefined]) {
      if (p99[onDriver(inbox, driver)]) record('http', `${onDriver(inbox, driver)}: p99 acknowledge latency`, 'ms', p99[onDriver(inbox, driver)]);
    }
  }
  const sqlite = (name) => samples[onDriver(name)];
  // The targets (docs/performance.md#what-is-measured-against-what): each near what the parts measured alone allow.
  compare('express: webhookHandler inbox mode / @octokit/webhooks', sqlite('express webhookHandler, inbox mode'), samples['express @octokit/webhooks middleware'], 0.75);
  compare('node:http: nodeHandler inbox mode / bare node:http', sqlite('node:http nodeHandler, inbox mode'), samples['node:http bare'], 0.4);
  compare('express: webhookHandler / bare Express', sqlite('express webhookHandler + sqliteStore'), samples['express bare'], 0.72);
  compare('fastify: fastifyWebhooks / bare Fastify', sqlite('fastify fastifyWebhooks + sqliteStore'), samples['fastify bare'], 0.7);
  compare('hono: honoWebhooks / bare Hono (@hono/node-server)', sqlite('hono honoWebhooks + sqliteStore (@hono/node-server)'), samples['hono bare (@hono/node-server)'], 0.7);
  compare('express: webhookHandler / @octokit/webhooks', sqlite('express webhookHandler + sqliteStore'), samples['express @octokit/webhooks middleware'], 0.8);
  compare('node:http: nodeHandler / bare node:http', sqlite('node:http nodeHandler + sqliteStore'), samples['node:http bare'], 0.45);
  compare('node:http: nodeHandler, postgresStore / sqliteStore', samples['node:http nodeHandler + postgresStore'], sqlite('node:http nodeHandler + sqliteStore'), 0.6);
  for (const driver of drivers?.slice(1) ?? []) {
    for (const name of sqliteConfigs) compare(`${name}: ${driver} / ${drivers[0]}`, samples[onDriver(name, driver)], samples[onDriver(name)], DRIVER_PARITY);
  }
}

async function micro(group, unit, pairs, extra = []) {
  const samples = await runChild(join(here, 'micro.mjs'), [group, String(settings.rounds), String(settings.microMs), ...extra]);
  for (const [name, list] of Object.entries(samples)) record(group, name, unit, list);
  for (const [name, numerator, denominator, target] of pairs) compare(name, samples[numerator], samples[denominator], target);
  progress(`${group}: done`);
}

async function dispatcher() {
  const samples = [];
  for (let round = 0; round < settings.rounds; round++) {
    const { child, message } = await startChild(join(here, 'servers', 'node-bare.mjs'));
    try {
      const result = await runChild(join(here, 'dispatch.mjs'), ['throughput', String(settings.deliveries), String(message.port)]);
      samples.push(result.deliveriesPerSecond);
      progress(`dispatcher: ${Math.round(result.deliveriesPerSecond)} deliveries/s`);
    } finally {
      await stop(child);
    }
  }
  record('dispatcher', `dispatcher → bare node:http, concurrency 50, SQLite (${settings.deliveries} events)`, 'deliveries/s', samples);
  checks.push(threshold('dispatcher: deliveries per second', summarize(samples), 2_000, 'deliveries/s'));

  // Isolation: the same healthy receiver alone and beside receivers that never answer, with the
  // dispatcher's defaults, interleaved round by round.
  const isolation = { alone: [], beside: [] };
  for (let round = 0; round < settings.rounds; round++) {
    for (const [name, hanging] of [['alone', 0], ['beside', HANGING_REGISTRATIONS]]) {
      const servers = [await startChild(join(here, 'servers', 'node-bare.mjs'))];
      for (let i = 0; i < hanging; i++) servers.push(await startChild(join(here, 'servers', 'node-hang.mjs')));
      try {
        const ports = servers.map(({ message }) => message.port).join(',');
        const result = await runChild(join(here, 'dispatch.mjs'), ['isolation', String(settings.deliveries), ports]);
        isolation[name].push(result.healthyPerSecond);
        progress(`dispatcher: healthy ${name === 'alone' ? 'alone' : `beside ${hanging} hanging`}: ${Math.round(result.healthyPerSecond)} deliveries/s`);
      } finally {
        await Promise.all(servers.map(({ child }) => stop(child)));
      }
    }
  }
  record('dispatcher', 'healthy registration alone, defaults (concurrency 50)', 'deliveries/s', isolation.alone);
  record('dispatcher', `healthy registration beside ${HANGING_REGISTRATIONS} hanging registrations, defaults`, 'deliveries/s', isolation.beside);
  compare(`dispatcher: healthy deliveries per second beside ${HANGING_REGISTRATIONS} hanging registrations / alone`, isolation.beside, isolation.alone, 0.8);

  const rss = {};
  const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-bench-pending-'));
  try {
    for (const pending of settings.pending) {
      const file = join(dir, `pending-${pending}.db`);
      const filled = await runChild(join(here, 'dispatch.mjs'), ['fill', String(pending), file]);
      const idle = await runChild(join(here, 'dispatch.mjs'), ['idle', '0', file]);
      rss[pending] = idle.rssMB;
      record('dispatcher', `worker RSS with ${pending.toLocaleString('en-US')} deliveries pending`, 'MB', [idle.rssMB]);
      progress(`dispatcher: ${pending} pending → ${idle.rssMB.toFixed(1)} MB RSS (saved in ${filled.emitSeconds.toFixed(1)} s)`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const [few, many] = settings.pending;
  checks.push(threshold(`dispatcher: RSS with ${many.toLocaleString('en-US')} pending`, summarize([rss[many]]), 150, 'MB', 'at most'));
  checks.push(threshold(`dispatcher: RSS growth from ${few.toLocaleString('en-US')} to ${many.toLocaleString('en-US')} pending`, summarize([rss[many] / rss[few]]), 1.15, '×', 'at most'));
}

/** The deliveries list over a log of 100 000 attempts: server time per page, p95 of each view. */
async function dashboard() {
  const result = await runChild(join(here, 'dashboard.mjs'), [String(settings.dashboardAttempts)]);
  const attempts = settings.dashboardAttempts.toLocaleString('en-US');
  for (const [view, { p95, median }] of Object.entries(result.views)) {
    record('dashboard', `deliveries page over ${attempts} attempts, ${view}: p95 (median ${median.toFixed(1)} ms)`, 'ms', [p95]);
    checks.push(threshold(`dashboard: deliveries page, ${view}, p95`, summarize([p95]), 100, 'ms', 'at most'));
  }
  progress(`dashboard: ${result.deliveries} deliveries, ${attempts} attempts (filled in ${result.fillSeconds.toFixed(1)} s)`);
}

/** Every page, the charts included, over 100 000 attempts and 100 000 received events, on SQLite and on PostgreSQL: p95 of each. */
async function dashboardPages() {
  const attempts = settings.dashboardAttempts.toLocaleString('en-US');
  const events = settings.dashboardEvents.toLocaleString('en-US');
  for (const backend of ['sqlite', 'postgres']) {
    const result = await runChild(join(here, 'dashboard-pages.mjs'), [String(settings.dashboardAttempts), String(settings.dashboardEvents), backend]);
    for (const [view, { p95, median }] of Object.entries(result.pages)) {
      record('dashboard', `${view} on ${backend}, ${attempts} attempts and ${events} received events: p95 (median ${median.toFixed(1)} ms)`, 'ms', [p95]);
      checks.push(threshold(`dashboard: ${view} on ${backend}, p95`, summarize([p95]), 100, 'ms', 'at most'));
    }
    progress(`dashboard pages on ${backend}: filled in ${result.fillSeconds.toFixed(1)} s`);
  }
}

async function inboxWorker() {
  const samples = [];
  const events = smoke ? 500 : 10_000;
  for (let round = 0; round < settings.rounds; round++) {
    const result = await runChild(join(here, 'inbox.mjs'), [String(events)]);
    samples.push(result.eventsPerSecond);
    progress(`inbox: ${Math.round(result.eventsPerSecond)} events/s drained`);
  }
  record('inbox', `inbox worker: events handled per second from a full inbox (SQLite, concurrency 10, ${events} events)`, 'events/s', samples);
}

function cli() {
  const launcher = join(here, '..', 'bin', 'acct-webhook.js');
  const time = (args) => {
    const start = performance.now();
    const result = spawnSync(process.execPath, args, { stdio: 'ignore' });
    if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${result.status}`);
    return performance.now() - start;
  };
  const help = [];
  const empty = [];
  for (let run = 0; run < settings.cliRuns * settings.rounds; run++) {
    help.push(time([launcher, '--help']));
    empty.push(time(['-e', '0']));
  }
  record('cli', 'acct-webhook --help', 'ms', help);
  record('cli', 'node -e 0', 'ms', empty);
  checks.push(threshold('cli: --help wall time / node -e 0', ratio(help, empty), 5, '×', 'at most'));
  progress('cli: done');
}

/**
 * Cold start, each in a fresh process (bench/cold-start.mjs): import + fetchHandler + the first
 * verified request, beside @octokit/webhooks' import + new Webhooks + verifyAndReceive (and an
 * older build given with --baseline), interleaved run by run; the median of 20 each.
 */
async function coldStart() {
  const script = join(here, 'cold-start.mjs');
  const subjects = { 'acct-webhook: import + fetchHandler + first verified request': ['acct-webhook'], '@octokit/webhooks: import + new Webhooks + verifyAndReceive': ['octokit'] };
  if (values.baseline) subjects[`acct-webhook at the baseline (${values.baseline}): import + fetchHandler + first verified request`] = ['acct-webhook', values.baseline];
  const samples = Object.fromEntries(Object.keys(subjects).map((name) => [name, []]));
  for (let run = 0; run < settings.coldStarts; run++) {
    for (const [name, args] of Object.entries(subjects)) samples[name].push((await runChild(script, args)).ms);
  }
  for (const [name, list] of Object.entries(samples)) record('cold-start', name, 'ms', list);
  const [ours] = Object.values(samples);
  checks.push(threshold('cold start: import + fetchHandler + first verified request', summarize(ours), 25, 'ms', 'at most'));
  progress(`cold start: ${Object.entries(samples).map(([name, list]) => `${name.split(':')[0]} ${summarize(list).median.toFixed(1)} ms`).join(', ')}`);
}

/** A figure against an absolute limit: `at least` (throughput) or `at most` (memory, time). */
function threshold(name, value, limit, unit, direction = 'at least') {
  const met = direction === 'at least' ? value.median >= limit : value.median <= limit;
  return { name, target: `${direction === 'at least' ? '≥' : '≤'} ${limit}${unit === '×' ? '' : ` ${unit}`}`, met, ...value };
}

function progress(line) {
  process.stderr.write(`  ${line}\n`);
}

const machine = { cores: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, platform: process.platform };
const started = new Date().toISOString();
const t0 = performance.now();

if (wanted('http')) await http();
if (wanted('verifier')) {
  await micro(
    'verifier',
    'ops/s',
    [
      ...[1, 10, 100].map((kb) => [`verifier ${kb} KB: verifySignature / inline HMAC`, `verifySignature ${kb} KB`, `inline createHmac + timingSafeEqual ${kb} KB`, 0.9]),
      ...[1, 10, 100].map((kb) => [`verifier Standard Webhooks v1 ${kb} KB: verifyStandardWebhook / inline node:crypto`, `verifyStandardWebhook v1 ${kb} KB`, `inline node:crypto Standard Webhooks v1 ${kb} KB`, 0.9]),
      ['verifier Standard Webhooks v1a (ed25519) 1 KB: verifyStandardWebhook / inline node:crypto', 'verifyStandardWebhook v1a 1 KB', 'inline node:crypto Standard Webhooks v1a 1 KB', 0.9],
    ],
  );
}
if (wanted('parser')) await micro('parser', 'ops/s', [['parser: parseEvent / JSON.parse + zod safeParse', 'parseEvent', 'JSON.parse + zod union safeParse', 0.9]]);
if (wanted('store')) {
  // A receiver under load has many deliveries in flight, and their writes share commits; one
  // event at a time is the worst case for group commit (each write waits for its own turn).
  const inFlight = 'sqliteStore claim + complete (50 events in flight)';
  const oneAtATime = 'sqliteStore claim + complete (one event at a time)';
  const durable = 'sqliteStore claim + complete (50 events in flight, synchronous=FULL)';
  const insert = 'INSERT OR IGNORE, autocommit';
  await micro(
    'store',
    'events/s',
    [
      ...(drivers ?? [undefined]).flatMap((driver) => [
        [onDriver('store: claim + complete / INSERT OR IGNORE (50 events in flight)', driver), onDriver(inFlight, driver), onDriver(insert, driver), 0.5],
        [onDriver('store: claim + complete / INSERT OR IGNORE (one event at a time)', driver), onDriver(oneAtATime, driver), onDriver(insert, driver), 0.5],
      ]),
      ...(drivers?.slice(1) ?? []).flatMap((driver) =>
        [inFlight, oneAtATime, durable, insert].map((name) => [`store: ${name}: ${driver} / ${drivers[0]}`, onDriver(name, driver), onDriver(name), DRIVER_PARITY]),
      ),
    ],
    drivers ? [drivers.join(',')] : [],
  );
}

if (wanted('dispatcher')) await dispatcher();
if (wanted('inbox')) await inboxWorker();
if (wanted('dashboard')) {
  await dashboard();
  await dashboardPages();
}
if (wanted('cli')) cli();
if (wanted('cold-start')) await coldStart();

const report = { machine, started, seconds: Math.round((performance.now() - t0) / 1000), smoke, settings, results, ratios: [...ratios, ...checks] };
writeFileSync(values.out ?? join(here, 'results.json'), `${JSON.stringify(report, null, 2)}\n`);
printTable(report);

function printTable({ results: rows, ratios: targets }) {
  const fmt = (n) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(2));
  console.log(`\nacct-webhook bench — ${machine.cores} cores (${machine.cpu}), Node ${machine.node}, ${settings.rounds} rounds${smoke ? ' (smoke)' : ''}\n`);
  console.log('| measurement | median | min | max | unit |\n|---|---:|---:|---:|---|');
  for (const row of rows) console.log(`| ${row.name} | ${fmt(row.median)} | ${fmt(row.min)} | ${fmt(row.max)} | ${row.unit} |`);
  console.log('\n| check | median | min | max | target | met |\n|---|---:|---:|---:|---:|---|');
  for (const check of targets) {
    console.log(`| ${check.name} | ${fmt(check.median)} | ${fmt(check.min)} | ${fmt(check.max)} | ${check.target} | ${check.met ? 'yes' : 'NO'} |`);
  }
  console.log(`\n${report.seconds} s; written to ${values.out ?? 'bench/results.json'}`);
}
