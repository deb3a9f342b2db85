// A receiver process of the fault-injection run (see run.mjs). Its handler fails at random,
// is sometimes slower than the sender's timeout, and records its side effect in chaos_effects:
// plainly (its own autocommit write, the way most handlers work) or with ctx.atomic (in the
// transaction of the completion mark). In the inbox modes it runs in inbox mode with the ordering
// guard and also keeps each object's state in chaos_state; STORE_KIND=pg puts store and tables in
// PostgreSQL.
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import pg from 'pg';
import { nodeHandler, sqliteStore, Webhooks } from '../../dist/index.js';
import { postgresStore } from '../../dist/postgres.js';
import { CREATION_TYPES } from './lifecycles.mjs';
import { ATOMIC_MODES } from './settings.mjs';

const { PORT, STORE, SECRETS, MODE, FAIL_RATE, SLOW_RATE, SLOW_MS, WORK_AFTER_EFFECT_MS, STORE_KIND, PG_URL, PG_SCHEMA } = process.env;
const inbox = MODE.startsWith('inbox');
const atomicEffects = ATOMIC_MODES.has(MODE);

const EFFECT_SQL = 'INSERT INTO chaos_effects (event_id, pid, at) VALUES (?, ?, ?)';
// A current event replaces the object's state; a stale one (only creation events reach the
// handler) fills in what is missing and never overwrites.
const STATE_SQL = {
  current: 'INSERT INTO chaos_state (object_id, seq, type) VALUES (?, ?, ?) ON CONFLICT (object_id) DO UPDATE SET seq = excluded.seq, type = excluded.type',
  stale: 'INSERT INTO chaos_state (object_id, seq, type) VALUES (?, ?, ?) ON CONFLICT (object_id) DO NOTHING',
};
const toPg = (sql) => sql.replace(/\?/g, (_, offset, text) => `$${text.slice(0, offset).split('?').length}`);

/** Writes an effect (and the state) as this mode does; returns a promise for PostgreSQL. */
function writer() {
  if (STORE_KIND === 'pg') {
    const pool = new pg.Pool({ connectionString: PG_URL, max: 4, options: `-c search_path=${PG_SCHEMA}` });
    // The atomic effect runs on the store's connection, whose search_path is the default: the
    // tables are named with their schema.
    const inSchema = (sql) => toPg(sql).replace(/(chaos_effects|chaos_state)/g, `${PG_SCHEMA}.$1`);
    const write = async (client, event, stale) => {
      await client.query(inSchema(EFFECT_SQL), [event.id, process.pid, Date.now()]);
      if (inbox) await client.query(inSchema(stale ? STATE_SQL.stale : STATE_SQL.current), [event.data.object.id, event.data.object.seq, event.type]);
    };
    return async (event, stale, atomic) => {
      if (atomicEffects) atomic((client) => write(client, event, stale));
      else await write(pool, event, stale);
    };
  }
  const plain = new Database(STORE);
  plain.pragma('busy_timeout = 5000');
  return (event, stale, atomic) => {
    const write = (db) => {
      db.prepare(EFFECT_SQL).run(event.id, process.pid, Date.now());
      if (inbox) db.prepare(stale ? STATE_SQL.stale : STATE_SQL.current).run(event.data.object.id, event.data.object.seq, event.type);
    };
    if (atomicEffects) atomic(write);
    else write(plain);
  };
}
const record = writer();

const hooks = new Webhooks().onAny(async (event, { atomic, stale }) => {
  if (Math.random() < Number(SLOW_RATE)) await new Promise((resolve) => setTimeout(resolve, Number(SLOW_MS)));
  if (Math.random() < Number(FAIL_RATE)) throw new Error('injected handler failure');
  if (stale && !CREATION_TYPES.has(event.type)) throw new Error('a stale update reached a handler');
  await record(event, stale, atomic);
  // More work after the side effect (a mail, a call): the crash window of the plain modes.
  await new Promise((resolve) => setTimeout(resolve, Number(WORK_AFTER_EFFECT_MS)));
});

const handler = nodeHandler({
  secret: SECRETS.split(','),
  handlers: hooks,
  store: STORE_KIND === 'pg' ? postgresStore(PG_URL, { schema: PG_SCHEMA }) : sqliteStore(STORE),
  logger: false,
  // The handlers' budget: direct mode's, or inbox mode's own (a receiver takes one of them).
  // The dispatcher runs on a compressed clock, so its timestamps run ahead of this process's:
  // the freshness window is not what this run tests.
  toleranceSeconds: 1e9,
  ...(inbox
    ? {
        ordering: true,
        inbox: { concurrency: 10, handlerTimeoutMs: 1_000, leaseMs: 6_000, pollIntervalMs: 20, retryDelaysMs: [50, 100, 200, 400, 800, 1_600, 3_200] },
      }
    : { handlerTimeoutMs: 1_000 }),
});
const server = createServer(handler);
server.listen(Number(PORT), '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
