// In-process micro benchmarks, configurations interleaved round by round.
// Usage: node bench/micro.mjs <verifier|parser|store> <rounds> <ms per measurement> [<driver>,<driver>…]
// The store's configurations run once per SQLite driver listed (interleaved), or on the automatic choice.
import { createHmac, createPublicKey, timingSafeEqual, verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { generateSigningKeyPair } from '../dist/dispatcher.js';
import { parseEvent, signPayload, signStandardWebhook, sqliteStore, verifySignature, verifyStandardWebhook } from '../dist/index.js';
import { webhookEventSchema } from '../dist/internal.js';
import { SECRET, eventBody } from './lib/events.mjs';

const [group, rounds, ms] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const drivers = process.argv[5] ? process.argv[5].split(',') : [undefined];

/** Calls `op` in batches for about `ms` milliseconds; returns operations per second. */
async function opsPerSecond(op, { async = false } = {}) {
  let done = 0;
  const start = performance.now();
  const deadline = start + ms;
  while (performance.now() < deadline) {
    for (let i = 0; i < 100; i++) {
      if (async) await op(done);
      else op(done);
      done++;
    }
  }
  return (done * 1000) / (performance.now() - start);
}

async function interleave(configs) {
  const samples = Object.fromEntries(Object.keys(configs).map((name) => [name, []]));
  for (const [, config] of Object.entries(configs)) await opsPerSecond(config.op, config); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (const [name, config] of Object.entries(configs)) samples[name].push(await opsPerSecond(config.op, config));
  }
  return samples;
}

function verifierConfigs(size) {
  const body = Buffer.from(eventBody(0).padEnd(size, ' '));
  const { signature, timestamp } = signPayload({ payload: body, secret: SECRET });
  const header = String(timestamp);
  return {
    [`verifySignature ${size / 1024} KB`]: {
      op: () => verifySignature({ payload: body, signature, timestamp: header, secret: SECRET }),
    },
    [`inline createHmac + timingSafeEqual ${size / 1024} KB`]: {
      op: () => {
        const expected = createHmac('sha256', SECRET).update(`${header}.`).update(body).digest();
        if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) throw new Error('mismatch');
      },
    },
  };
}

/** A Standard Webhooks `whsec_` secret: base64 of 32 bytes after the prefix. */
const STANDARD_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
/** An ed25519 key pair for `v1a`, made once. */
const KEY_PAIR = generateSigningKeyPair();
// The DER framing of a bare ed25519 public key (RFC 8410), for the inline baseline.
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * Standard Webhooks `v1` at `size` bytes and `v1a` (ed25519), each beside inline node:crypto doing
 * the same work: the key decoded once (as a receiver holds it), the signed content
 * `id.timestamp.body`, the signature list parsed, the timestamp checked, the HMAC compared in
 * constant time or the ed25519 signature verified.
 */
function standardVerifierConfigs(size, version) {
  const body = Buffer.from(eventBody(0).padEnd(size, ' '));
  const id = 'evt_bench_standard';
  const secret = version === 'v1a' ? KEY_PAIR.privateKey : STANDARD_SECRET;
  const verifyWith = version === 'v1a' ? KEY_PAIR.publicKey : STANDARD_SECRET;
  const { headers } = signStandardWebhook({ id, payload: body, secret });
  const timestamp = headers['webhook-timestamp'];
  const signature = headers['webhook-signature'];
  const inlineKey = version === 'v1a'
    ? createPublicKey({ key: Buffer.concat([SPKI_PREFIX, Buffer.from(verifyWith.slice('whpk_'.length), 'base64')]), format: 'der', type: 'spki' })
    : Buffer.from(verifyWith.slice('whsec_'.length), 'base64');
  const label = `${version} ${size / 1024} KB`;
  return {
    [`verifyStandardWebhook ${label}`]: {
      op: () => verifyStandardWebhook({ payload: body, id, timestamp, signature, secret: verifyWith }),
    },
    [`inline node:crypto Standard Webhooks ${label}`]: {
      op: () => {
        const seconds = Number(timestamp);
        if (Math.abs(Date.now() / 1000 - seconds) > 300) throw new Error('stale');
        const prefix = `${id}.${timestamp}.`;
        for (const part of signature.split(' ')) {
          const [claimed, value] = part.split(',');
          if (claimed !== version) continue;
          const bytes = Buffer.from(value, 'base64');
          if (version === 'v1a') {
            if (verify(null, Buffer.concat([Buffer.from(prefix), body]), inlineKey, bytes)) return;
          } else {
            const expected = createHmac('sha256', inlineKey).update(prefix).update(body).digest();
            if (bytes.length === expected.length && timingSafeEqual(expected, bytes)) return;
          }
        }
        throw new Error('mismatch');
      },
    },
  };
}

function parserConfigs() {
  const bodies = Array.from({ length: 1800 }, (_, i) => Buffer.from(eventBody(i)));
  return {
    parseEvent: { op: (i) => parseEvent(bodies[i % bodies.length]) },
    'JSON.parse + zod union safeParse': {
      op: (i) => {
        const result = webhookEventSchema.safeParse(JSON.parse(bodies[i % bodies.length].toString()));
        if (!result.success) throw result.error;
      },
    },
  };
}

/**
 * The store's configurations on `driver` (the automatic choice when undefined; named after the
 * driver when given), and the baseline: the same driver's autocommitted INSERT, without the store.
 */
function storeConfigs(dir, driver) {
  const on = driver ? ` on ${driver}` : '';
  const file = join(dir, `store${driver ? `-${driver.replace(':', '-')}` : ''}.db`);
  const store = sqliteStore(file, driver ? { driver } : {});
  const durable = sqliteStore(join(dir, `durable${driver ? `-${driver.replace(':', '-')}` : ''}.db`), { synchronous: 'FULL', ...(driver ? { driver } : {}) });
  const db = driver === 'node:sqlite' ? new (process.getBuiltinModule('node:sqlite').DatabaseSync)(file) : new Database(file);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('CREATE TABLE IF NOT EXISTS plain_insert (id TEXT PRIMARY KEY) WITHOUT ROWID');
  const insert = db.prepare('INSERT OR IGNORE INTO plain_insert (id) VALUES (?)');
  let seq = 0;
  const claimAndComplete = async (_i, target = store) => {
    const id = `evt_${seq++}`;
    const claim = await target.claim(id, { now: Date.now(), leaseMs: 30_000 });
    await target.complete(id, claim.token, Date.now());
  };
  return {
    [`sqliteStore claim + complete (one event at a time)${on}`]: { async: true, op: claimAndComplete },
    [`sqliteStore claim + complete (50 events in flight)${on}`]: {
      async: true,
      op: () => Promise.all(Array.from({ length: 50 }, () => claimAndComplete(0))),
      perOp: 50,
    },
    [`sqliteStore claim + complete (50 events in flight, synchronous=FULL)${on}`]: {
      async: true,
      op: () => Promise.all(Array.from({ length: 50 }, () => claimAndComplete(0, durable))),
      perOp: 50,
    },
    [`INSERT OR IGNORE, autocommit${on}`]: { op: () => insert.run(`ins_${seq++}`) },
  };
}

const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-micro-'));
try {
  let configs;
  if (group === 'verifier') {
    configs = {
      ...verifierConfigs(1024),
      ...verifierConfigs(10 * 1024),
      ...verifierConfigs(100 * 1024),
      ...standardVerifierConfigs(1024, 'v1'),
      ...standardVerifierConfigs(10 * 1024, 'v1'),
      ...standardVerifierConfigs(100 * 1024, 'v1'),
      ...standardVerifierConfigs(1024, 'v1a'),
    };
  }
  else if (group === 'parser') configs = parserConfigs();
  else if (group === 'store') configs = Object.assign({}, ...drivers.map((driver) => storeConfigs(dir, driver)));
  else throw new Error(`unknown group ${group}`);
  const samples = await interleave(configs);
  for (const [name, config] of Object.entries(configs)) {
    if (config.perOp) samples[name] = samples[name].map((value) => value * config.perOp);
  }
  console.log(JSON.stringify(samples));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
