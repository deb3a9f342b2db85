// npm run test:chaos — the fault-injection run. The dispatcher sends thousands of events of all
// 18 types to two receiver processes sharing one SQLite file, while handlers fail at random
// (~10 %), some run past the sender's shortened timeout, every event reaches both receivers at
// once (two webhooks) and extra copies arrive out of order, receivers are killed with SIGKILL and
// restarted, and so is the dispatcher. The retry schedule runs 3 000 times faster than real time.
// At the end it counts: events emitted, handled, lost, handled twice, finally failed, kills.
//
//   node test/chaos/run.mjs [--mode plain|atomic|pg-atomic|inbox-atomic|inbox-pg|both|postgres|all] [--events 2000]
//
// plain:  handlers write their side effect themselves (autocommit). A process killed after that
//         write and before the completion record lets the redelivery repeat the effect: the
//         documented crash window. Those repeats are counted apart; any other repeat fails the run.
// atomic: handlers write through ctx.atomic, in the completion's transaction. Repeats must be 0.
// pg-atomic: the same on PostgreSQL (store and tables): the effects run on the store's
//         connection, in the transaction of the done mark. Repeats must be 0.
// inbox-atomic: the receivers run in inbox mode with the ordering guard, on SQLite, with atomic
//         effects; the events are the lifecycles of objects, and each object's final state must
//         be that of its last event. Repeats must be 0.
// inbox-pg: the same on PostgreSQL (store and tables), two receiver processes sharing the inbox,
//         with atomic effects. Repeats must be 0.
// both = plain + atomic; postgres = pg-atomic + inbox-pg; all (the default) = the five.
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
import pg from 'pg';
import { EVENT_TYPES, signPayload } from '../../dist/index.js';
import { Dispatcher } from '../../dist/dispatcher.js';
import { createTestEvent } from '../../dist/testing.js';
import { lifecycleEvents } from './lifecycles.mjs';
import { ATOMIC_MODES, chaosClock, DELIVERY_TIMEOUT_MS, DISPATCH_SETTINGS, POSTGRES_MODES, TIME_SCALE } from './settings.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({ options: { mode: { type: 'string', default: 'all' }, events: { type: 'string', default: '2000' } } });
const PG_URL = process.env.CHAOS_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TABLES_SQL = `
  CREATE TABLE chaos_effects (event_id TEXT NOT NULL, pid INTEGER NOT NULL, at BIGINT NOT NULL);
  CREATE TABLE chaos_state (object_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, type TEXT NOT NULL);`;
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

/** Where the receivers keep their store and tables: a SQLite file, or a fresh PostgreSQL schema. */
async function receiverStorage(mode, dir) {
  if (!POSTGRES_MODES.has(mode)) {
    const storeFile = join(dir, 'receivers.db');
    const setup = new Database(storeFile);
    setup.pragma('journal_mode = WAL');
    setup.exec(TABLES_SQL);
    setup.close();
    const query = (sql) => {
      const db = new Database(storeFile, { readonly: true });
      try {
        return db.prepare(sql).all();
      } catch (error) {
        if (/no such table/.test(String(error))) return [];
        throw error;
      } finally {
        db.close();
      }
    };
    return { env: { STORE: storeFile, STORE_KIND: 'sqlite' }, query: async (sql) => query(sql), drop: async () => undefined };
  }
  const schema = `chaos_${process.pid}_${Date.now()}`;
  const pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
  await pool.query(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}; ${TABLES_SQL}`);
  const query = async (sql) => {
    const client = await pool.connect();
    try {
      await client.query(`SET search_path TO ${schema}`);
      return (await client.query(sql)).rows;
    } catch (error) {
      if (/relation .* does not exist/.test(String(error))) return [];
      throw error;
    } finally {
      client.release();
    }
  };
  const drop = async () => {
    await pool.query(`DROP SCHEMA ${schema} CASCADE`);
    await pool.end();
  };
  return { env: { STORE_KIND: 'pg', PG_URL, PG_SCHEMA: schema }, query, drop };
}

async function runMode(mode) {
  const dir = mkdtempSync(join(tmpdir(), `acct-webhook-chaos-${mode}-`));
  const dispatchFile = join(dir, 'dispatch.db');
  const storage = await receiverStorage(mode, dir);
  const inbox = mode.startsWith('inbox');
  const lifecycle = inbox ? lifecycleEvents(EVENTS) : [];

  const epoch = Date.now();
  const emitter = new Dispatcher({ database: dispatchFile, clock: chaosClock(epoch), logger: false, ...DISPATCH_SETTINGS });
  const ports = [await freePort(), await freePort()];
  const secrets = [];
  for (const port of ports) {
    secrets.push((await emitter.webhooks.create({ url: `http://127.0.0.1:${port}/webhooks`, events: ['*'] })).secret);
  }
  const receiverEnv = (port) => ({
    ...storage.env,
    PORT: String(port),
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
    const total = inbox ? lifecycle.length : EVENTS;
    for (let i = 0; i < total; i++) {
      if (inbox) {
        // An object's events in its lifecycle's order: `created` comes from the emitter's clock.
        const { type, objectId, seq } = lifecycle[i];
        const object = { ...createTestEvent(type).data.object, id: objectId, seq };
        // One real millisecond apart at least: ×3000, the same millisecond would be 3 s of the
        // compressed clock in one `created`, a tie no platform produces between two steps of one object.
        const previous = emitted.at(-1);
        while (previous && Date.parse(previous.created) >= chaosClock(epoch)()) await sleep(1);
        emitted.push(await emitter.emit(type, object, { business_id: 'biz_chaos' }));
      } else {
        emitted.push(await emitter.emit(createTestEvent(EVENT_TYPES[i % EVENT_TYPES.length])));
      }
      const due = t0 + ((i + 1) * EMIT_SECONDS * 1000) / total;
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
  const busy = async () =>
    (await emitter.deliveries.list({ status: 'retrying', limit: 1 })).length > 0 ||
    (inbox && Number((await storage.query("SELECT COUNT(*) AS n FROM acct_webhook_inbox WHERE status IN ('pending', 'processing')"))[0]?.n ?? 0) > 0);
  while (Date.now() < deadline && (await busy())) await sleep(500);
  const seconds = (Date.now() - t0) / 1000;

  await Promise.all([...receivers, dispatcher].map(kill));
  await emitter.close();
  const result = await count({ storage, dispatchFile, receiverKills, emitted, inbox });
  await storage.drop();
  rmSync(dir, { recursive: true, force: true });
  return { mode, seconds, dispatcherKills, receiverKills: receiverKills.length, extraCopies, ...result };
}

/** For the inbox modes: events done as stale (no effect, on purpose), dead events, and wrong final states. */
async function inboxCounts(storage, emitted) {
  const staleDone = new Set((await storage.query("SELECT event_id FROM acct_webhook_inbox WHERE status = 'done' AND CAST(stale AS INTEGER) = 1")).map((row) => row.event_id));
  const dead = Number((await storage.query("SELECT COUNT(*) AS n FROM acct_webhook_inbox WHERE status = 'dead'"))[0]?.n ?? 0);
  const state = new Map((await storage.query('SELECT object_id, seq, type FROM chaos_state')).map((row) => [row.object_id, row]));
  const last = new Map();
  for (const event of emitted) last.set(event.data.object.id, event);
  let wrongState = 0;
  for (const [objectId, event] of last) {
    const row = state.get(objectId);
    if (row?.type !== event.type || Number(row.seq) !== event.data.object.seq) {
      wrongState += 1;
      const history = emitted.filter((e) => e.data.object.id === objectId).map((e) => `${e.type}@${e.created}`);
      log(`${objectId}: ended as ${row ? `${row.type} #${row.seq}` : 'nothing'}, its events: ${history.join(', ')}`);
    }
  }
  return { staleDone, dead, wrongState, objects: last.size };
}

async function count({ storage, dispatchFile, receiverKills, emitted, inbox }) {
  const dispatch = new Database(dispatchFile, { readonly: true });
  const perEvent = dispatch
    .prepare(
      `SELECT e.id, SUM(d.status = 'delivered') AS delivered, SUM(d.status = 'retrying') AS pending, COUNT(*) AS deliveries
       FROM dispatch_events e JOIN dispatch_deliveries d ON d.event_id = e.id GROUP BY e.id`,
    )
    .all();
  const attempts = dispatch.prepare('SELECT COUNT(*) AS n FROM dispatch_attempts').get().n;
  dispatch.close();

  const effects = new Map();
  for (const row of await storage.query('SELECT event_id, pid, at FROM chaos_effects ORDER BY at')) {
    effects.set(row.event_id, [...(effects.get(row.event_id) ?? []), { ...row, at: Number(row.at) }]);
  }
  const inboxResult = inbox ? await inboxCounts(storage, emitted) : { staleDone: new Set(), dead: 0, wrongState: 0, objects: 0 };

  const killedAt = new Map(receiverKills.map((k) => [k.pid, k.at]));
  let lost = 0;
  let finallyFailed = 0;
  let unfinished = 0;
  for (const event of perEvent) {
    // Skipped as stale by the ordering guard: acknowledged, and nothing to do on purpose.
    if (effects.has(event.id) || inboxResult.staleDone.has(event.id)) continue;
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
    emitted: emitted.length,
    objects: inboxResult.objects,
    staleSkipped: inboxResult.staleDone.size,
    dead: inboxResult.dead,
    wrongState: inboxResult.wrongState,
    deliveries: perEvent.reduce((sum, event) => sum + event.deliveries, 0),
    attempts,
    handled: effects.size,
    lost: lost + unfinished - inboxResult.dead,
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
  if (ATOMIC_MODES.has(result.mode) && result.handledTwiceInCrashWindow > 0) failures.push('events handled twice with atomic effects');
  if (result.wrongState > 0) failures.push(`${result.wrongState} objects not in the state of their last event`);
  if (result.dead > 0) failures.push(`${result.dead} events dead in the inbox`);
  if (result.receiverKills < 3 || result.dispatcherKills < 2) failures.push('fewer kills than planned');
  if (result.emitted < EVENTS) failures.push('not every event was emitted');
  return failures;
}

const modes = { both: ['plain', 'atomic'], postgres: ['pg-atomic', 'inbox-pg'], all: ['plain', 'atomic', 'pg-atomic', 'inbox-atomic', 'inbox-pg'] }[values.mode] ?? [values.mode];
const results = [];
for (const mode of modes) results.push(await runMode(mode));

console.log(`\nacct-webhook fault-injection run: schedule ×${TIME_SCALE}, sender timeout ${DELIVERY_TIMEOUT_MS} ms, 2 receiver processes sharing one store (SQLite, or PostgreSQL for pg-atomic and inbox-pg)\n`);
const rows = [
  ['events emitted', 'emitted'],
  ['deliveries (2 webhooks each)', 'deliveries'],
  ['attempts made', 'attempts'],
  ['extra copies sent out of order', 'extraCopies'],
  ['objects (inbox modes)', 'objects'],
  ['events handled', 'handled'],
  ['done as stale (ordering guard: skipped, or a creation event run flagged)', 'staleSkipped'],
  ['objects not in their last state', 'wrongState'],
  ['dead in the inbox', 'dead'],
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
