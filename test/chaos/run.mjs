// npm run test:chaos — the fault-injection run. The dispatcher sends thousands of events of all
// 18 types to two receiver processes sharing one SQLite file, while handlers fail at random
// (~10 %), some run past the sender's shortened timeout, every event reaches both receivers at
// once (two webhooks) and extra copies arrive out of order, receivers are killed with SIGKILL and
// restarted, and so is the dispatcher. The retry schedule runs 3 000 times faster than real time.
// At the end it counts: events emitted, handled, lost, handled twice, finally failed, kills.
//
//   node test/chaos/run.mjs [--mode plain|atomic|both] [--events 2000]
//
// plain:  handlers write their side effect themselves (autocommit). A process killed after that
//         write and before the completion record lets the redelivery repeat the effect: the
//         documented crash window. Those repeats are counted apart; any other repeat fails the run.
// atomic: handlers write through ctx.atomic, in the completion's transaction. Repeats must be 0.
// Loopback only; exits by itself; non-zero exit when a check fails.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { EVENT_TYPES, signPayload } from '../../dist/index.js';
import { Dispatcher } from '../../dist/dispatcher.js';
import { createTestEvent } from '../../dist/testing.js';
import { chaosClock, DELIVERY_TIMEOUT_MS, DISPATCH_SETTINGS, TIME_SCALE } from './settings.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({ options: { mode: { type: 'string', default: 'both' }, events: { type: 'string', default: '2000' } } });
const EVENTS = Number(values.events);
const EMIT_SECONDS = 20;
const DEADLINE_SECONDS = 80;
/** A repeat counts as the crash window when its first effect was written this soon before its process was killed. */
const CRASH_WINDOW_MS = 1_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line) => process.stderr.write(`  ${line}\n`);

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts `node script` with env, waits for its first stdout line. */
async function start(script, env) {
  const child = spawn(process.execPath, [join(here, script)], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
  return child;
}

function kill(child) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  return exited;
}

async function runMode(mode) {
  const dir = mkdtempSync(join(tmpdir(), `acct-webhook-chaos-${mode}-`));
  const storeFile = join(dir, 'receivers.db');
  const dispatchFile = join(dir, 'dispatch.db');
  const setup = new Database(storeFile);
  setup.pragma('journal_mode = WAL');
  setup.exec('CREATE TABLE chaos_effects (event_id TEXT NOT NULL, pid INTEGER NOT NULL, at INTEGER NOT NULL)');
  setup.close();

  const epoch = Date.now();
  const emitter = new Dispatcher({ database: dispatchFile, clock: chaosClock(epoch), logger: false, ...DISPATCH_SETTINGS });
  const ports = [await freePort(), await freePort()];
  const secrets = [];
  for (const port of ports) {
    secrets.push((await emitter.webhooks.create({ url: `http://127.0.0.1:${port}/webhooks`, events: ['*'] })).secret);
  }
  const receiverEnv = (port) => ({
    PORT: String(port),
    STORE: storeFile,
    SECRETS: secrets.join(','),
    MODE: mode,
    FAIL_RATE: '0.1',
    SLOW_RATE: '0.03',
    SLOW_MS: String(DELIVERY_TIMEOUT_MS + 150),
    WORK_AFTER_EFFECT_MS: '15',
  });
  const dispatcherEnv = { DISPATCH_DB: dispatchFile, CHAOS_EPOCH: String(epoch) };

  const receivers = [];
  for (const port of ports) receivers.push(await start('receiver.mjs', receiverEnv(port)));
  let dispatcher = await start('dispatcher.mjs', dispatcherEnv);
  const receiverKills = [];
  let dispatcherKills = 0;
  let extraCopies = 0;
  const emitted = [];
  const t0 = Date.now();

  const emitting = (async () => {
    for (let i = 0; i < EVENTS; i++) {
      emitted.push(await emitter.emit(createTestEvent(EVENT_TYPES[i % EVENT_TYPES.length])));
      const due = t0 + ((i + 1) * EMIT_SECONDS * 1000) / EVENTS;
      if (due > Date.now()) await sleep(due - Date.now());
    }
  })();

  const killingReceivers = (async () => {
    for (let round = 0; round < 4; round++) {
      await sleep(3_000 + Math.random() * 2_000);
      const index = Math.floor(Math.random() * receivers.length);
      const victim = receivers[index];
      await kill(victim);
      receiverKills.push({ pid: victim.pid, at: Date.now() });
      await sleep(300);
      receivers[index] = await start('receiver.mjs', receiverEnv(ports[index]));
    }
  })();

  const killingDispatcher = (async () => {
    for (const at of [7_000, 15_000]) {
      await sleep(t0 + at - Date.now());
      await kill(dispatcher);
      dispatcherKills += 1;
      await sleep(500);
      dispatcher = await start('dispatcher.mjs', dispatcherEnv);
    }
  })();

  // Extra copies of events already sent, out of order, to either receiver, signed afresh.
  const copying = (async () => {
    while (Date.now() - t0 < EMIT_SECONDS * 1000) {
      await sleep(10);
      const event = emitted[Math.floor(Math.random() * emitted.length)];
      if (!event) continue;
      const body = JSON.stringify(event);
      const { headers } = signPayload({ payload: body, secret: secrets[0] });
      const port = ports[Math.floor(Math.random() * ports.length)];
      extraCopies += 1;
      await fetch(`http://127.0.0.1:${port}/webhooks`, { method: 'POST', body, headers: { ...headers, 'content-type': 'application/json' } })
        .then((response) => response.arrayBuffer())
        .catch(() => undefined);
    }
  })();

  await Promise.all([emitting, killingReceivers, killingDispatcher, copying]);
  log(`${mode}: ${EVENTS} events emitted in ${((Date.now() - t0) / 1000).toFixed(1)} s; waiting for the schedule to finish`);
  const deadline = t0 + DEADLINE_SECONDS * 1000;
  while (Date.now() < deadline && (await emitter.deliveries.list({ status: 'retrying', limit: 1 })).length > 0) await sleep(500);
  const seconds = (Date.now() - t0) / 1000;

  await Promise.all([...receivers, dispatcher].map(kill));
  await emitter.close();
  const result = count({ storeFile, dispatchFile, receiverKills, emitted: emitted.length });
  rmSync(dir, { recursive: true, force: true });
  return { mode, seconds, dispatcherKills, receiverKills: receiverKills.length, extraCopies, ...result };
}

function count({ storeFile, dispatchFile, receiverKills, emitted }) {
  const dispatch = new Database(dispatchFile, { readonly: true });
  const perEvent = dispatch
    .prepare(
      `SELECT e.id, SUM(d.status = 'delivered') AS delivered, SUM(d.status = 'retrying') AS pending, COUNT(*) AS deliveries
       FROM dispatch_events e JOIN dispatch_deliveries d ON d.event_id = e.id GROUP BY e.id`,
    )
    .all();
  const attempts = dispatch.prepare('SELECT COUNT(*) AS n FROM dispatch_attempts').get().n;
  dispatch.close();

  const store = new Database(storeFile, { readonly: true });
  const effects = new Map();
  for (const row of store.prepare('SELECT event_id, pid, at FROM chaos_effects ORDER BY at').all()) {
    effects.set(row.event_id, [...(effects.get(row.event_id) ?? []), row]);
  }
  store.close();

  const killedAt = new Map(receiverKills.map((k) => [k.pid, k.at]));
  let lost = 0;
  let finallyFailed = 0;
  let unfinished = 0;
  for (const event of perEvent) {
    if (effects.has(event.id)) continue;
    if (event.pending > 0) unfinished += 1;
    else if (event.delivered > 0) lost += 1; // acknowledged, yet no handler effect
    else finallyFailed += 1;
  }
  let twiceInCrashWindow = 0;
  let twiceOtherwise = 0;
  for (const rows of effects.values()) {
    if (rows.length < 2) continue;
    const first = rows[0];
    const killed = killedAt.get(first.pid);
    if (killed !== undefined && killed >= first.at && killed - first.at <= CRASH_WINDOW_MS) twiceInCrashWindow += 1;
    else twiceOtherwise += 1;
  }
  return {
    emitted,
    deliveries: perEvent.reduce((sum, event) => sum + event.deliveries, 0),
    attempts,
    handled: effects.size,
    lost: lost + unfinished,
    unfinished,
    handledTwiceInCrashWindow: twiceInCrashWindow,
    handledTwiceOtherwise: twiceOtherwise,
    finallyFailed,
  };
}

function verdict(result) {
  const failures = [];
  if (result.lost > 0) failures.push(`${result.lost} events lost`);
  if (result.handledTwiceOtherwise > 0) failures.push(`${result.handledTwiceOtherwise} events handled twice outside the crash window`);
  if (result.mode === 'atomic' && result.handledTwiceInCrashWindow > 0) failures.push('events handled twice with atomic effects');
  if (result.receiverKills < 3 || result.dispatcherKills < 2) failures.push('fewer kills than planned');
  if (result.emitted < EVENTS) failures.push('not every event was emitted');
  return failures;
}

const modes = values.mode === 'both' ? ['plain', 'atomic'] : [values.mode];
const results = [];
for (const mode of modes) results.push(await runMode(mode));

console.log(`\nacct-webhook fault-injection run: schedule ×${TIME_SCALE}, sender timeout ${DELIVERY_TIMEOUT_MS} ms, 2 receivers on one SQLite file\n`);
const rows = [
  ['events emitted', 'emitted'],
  ['deliveries (2 webhooks each)', 'deliveries'],
  ['attempts made', 'attempts'],
  ['extra copies sent out of order', 'extraCopies'],
  ['events handled', 'handled'],
  ['lost (not handled, not finally failed)', 'lost'],
  ['handled twice, crash window', 'handledTwiceInCrashWindow'],
  ['handled twice, otherwise', 'handledTwiceOtherwise'],
  ['finally failed', 'finallyFailed'],
  ['receiver SIGKILLs survived', 'receiverKills'],
  ['dispatcher SIGKILLs survived', 'dispatcherKills'],
  ['seconds', 'seconds'],
];
console.log(`| | ${results.map((r) => r.mode).join(' | ')} |\n|---|${results.map(() => '---:').join('|')}|`);
for (const [label, key] of rows) {
  console.log(`| ${label} | ${results.map((r) => (key === 'seconds' ? r[key].toFixed(1) : r[key])).join(' | ')} |`);
}
const failures = results.flatMap((result) => verdict(result).map((failure) => `${result.mode}: ${failure}`));
console.log(failures.length === 0 ? '\nAll checks passed.' : `\nFAILED: ${failures.join('; ')}`);
process.exitCode = failures.length === 0 ? 0 : 1;
