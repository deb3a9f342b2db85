// A receiver process of the fault-injection run (see run.mjs). Its handler fails at random,
// is sometimes slower than the sender's timeout, and records its side effect in the
// chaos_effects table of the store's SQLite file: plainly (its own autocommit write, the way most
// handlers work) or with ctx.atomic (in the transaction of the completion mark).
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import { nodeHandler, sqliteStore, Webhooks } from '../../dist/index.js';

const { PORT, STORE, SECRETS, MODE, FAIL_RATE, SLOW_RATE, SLOW_MS, WORK_AFTER_EFFECT_MS } = process.env;
const plain = new Database(STORE);
plain.pragma('busy_timeout = 5000');
const insertPlain = plain.prepare('INSERT INTO chaos_effects (event_id, pid, at) VALUES (?, ?, ?)');

const hooks = new Webhooks().onAny(async (event, { atomic }) => {
  if (Math.random() < Number(SLOW_RATE)) await new Promise((resolve) => setTimeout(resolve, Number(SLOW_MS)));
  if (Math.random() < Number(FAIL_RATE)) throw new Error('injected handler failure');
  if (MODE === 'atomic') {
    atomic((db) => db.prepare('INSERT INTO chaos_effects (event_id, pid, at) VALUES (?, ?, ?)').run(event.id, process.pid, Date.now()));
  } else {
    insertPlain.run(event.id, process.pid, Date.now());
  }
  // More work after the side effect (a mail, a call): the crash window of the plain mode.
  await new Promise((resolve) => setTimeout(resolve, Number(WORK_AFTER_EFFECT_MS)));
});

const handler = nodeHandler({
  secret: SECRETS.split(','),
  handlers: hooks,
  store: sqliteStore(STORE),
  logger: false,
  handlerTimeoutMs: 1_000,
  // The dispatcher runs on a compressed clock, so its timestamps run ahead of this process's:
  // the freshness window is not what this run tests.
  toleranceSeconds: 1e9,
});
const server = createServer(handler);
server.listen(Number(PORT), '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
