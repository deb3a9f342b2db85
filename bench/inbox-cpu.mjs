// Inbox mode's CPU time per event on a SQLite file, in process (all threads, process.cpuUsage):
// a loaded machine distorts this far less than requests per second. Phases, each its own number:
//   ack     deliveries received by `receive()` in waves of 50 with the worker stopped: the
//           acknowledge alone (verify, parse, store, answer)
//   work    then a receiver started on the file runs them all: the worker's claims, runs and
//           completions alone (it parses the stored bytes: nothing was kept for it)
//   mixed   on a new file, deliveries received in waves of 50 with the worker running (as a
//           server runs), then the rest drained: receive and drain CPU per event
//   direct  for comparison, direct mode on a new file: receive (verify, store, run, record) per event
//   store   the store alone, on a new file: enqueue in waves of 50, claims of 10, the
//           completions of a claim in one turn (µs per event for each)
// --prefill N: each file starts with N done events (an inbox keeps them for the retention, 30 days
// by default, so its indexes are large; they are written with better-sqlite3 before the store opens).
// Usage: node bench/inbox-cpu.mjs [--dist <dir>] [--events N] [--prefill N] [--phases ack,work,mixed,direct,store]
// Prints one JSON line of µs per event. Compare builds side by side, alternating runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';

const { values } = parseArgs({
  options: { dist: { type: 'string', default: 'dist' }, events: { type: 'string', default: '20000' }, prefill: { type: 'string', default: '0' }, phases: { type: 'string', default: 'ack,work,mixed,store' } },
});
const dist = resolve(values.dist);
const events = Number(values.events);
const phases = new Set(values.phases.split(','));
const { createReceiver, sqliteStore, Webhooks, EVENT_TYPES } = await import(pathToFileURL(join(dist, 'index.js')).href);
const { createTestEvent, signedHeaders } = await import(pathToFileURL(join(dist, 'testing.js')).href);

const SECRET = 'whsec_benchInboxCpuSecret000000000000';
const WAVE = 50;

/** About 1 KB, as bench/lib/events.mjs's bodies. */
function body(i) {
  const event = createTestEvent(EVENT_TYPES[i % EVENT_TYPES.length]);
  const size = JSON.stringify(event).length;
  const note = 'Zahlung gemäß Rechnung, Skonto 2 % bei Zahlung binnen 14 Tagen. '.repeat(20).slice(0, Math.max(0, 1024 - size - 12));
  return JSON.stringify({ ...event, data: { ...event.data, object: { ...event.data.object, note } } });
}

// The requests are made before any timing: signing is the sender's work.
const requests = Array.from({ length: events }, (_, i) => {
  const raw = body(i);
  return { rawBody: Buffer.from(raw), headers: { ...signedHeaders(raw, SECRET), 'user-agent': 'bench/1.0', 'x-request-id': `req-${i}` }, method: 'POST' };
});

const cpu = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

async function receiveAll(receiver) {
  const start = cpu();
  for (let i = 0; i < events; i += WAVE) {
    const answers = await Promise.all(requests.slice(i, i + WAVE).map((request) => receiver.receive(request)));
    for (const answer of answers) if (answer.status !== 200) throw new Error(`answer ${answer.status}: ${JSON.stringify(answer.body)}`);
  }
  return (cpu() - start) / events;
}

/** Resolves once `n` handler runs have happened. */
function counter(n) {
  let handled = 0;
  let resolveAll;
  const all = new Promise((resolve) => (resolveAll = resolve));
  const hooks = new Webhooks().onAny(() => {
    if (++handled === n) resolveAll();
  });
  return { hooks, all };
}

const result = { events, prefill: Number(values.prefill) };
const dirs = [];
const prefill = Number(values.prefill);
const tempFile = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-inbox-cpu-'));
  dirs.push(dir);
  const file = join(dir, 'events.db');
  if (prefill > 0) {
    await sqliteStore(file).close();
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(file);
    const insert = db.prepare(`INSERT INTO acct_webhook_inbox (event_id, event_type, status, raw_body, headers, received_at, event_created, next_attempt_at, completed_at)
      VALUES (?, ?, 'done', ?, ?, ?, ?, ?, ?)`);
    const start = Date.now() - prefill;
    db.transaction(() => {
      for (let i = 0; i < prefill; i++) {
        const at = start + i;
        insert.run(`evt_prefill_${randomUUID()}`, EVENT_TYPES[i % EVENT_TYPES.length], requests[i % events].rawBody, '{"headers":{},"secret_index":0,"signature_scheme":"v1"}', at, at, at, at);
      }
    })();
    db.close();
  }
  return file;
};

try {
  if (phases.has('ack') || phases.has('work')) {
    const store = sqliteStore(await tempFile());
    const filler = createReceiver({ secret: SECRET, store, logger: false, inbox: true });
    await filler.close();
    result.ack = await receiveAll(filler);
    if (phases.has('work')) {
      const { hooks, all } = counter(events);
      const start = cpu();
      const receiver = createReceiver({ secret: SECRET, store, logger: false, inbox: { pollIntervalMs: 5 }, handlers: hooks });
      await all;
      await receiver.inbox.drain({ timeoutMs: 600_000 });
      result.work = (cpu() - start) / events;
      await receiver.close();
    }
    await store.close();
  }
  if (phases.has('mixed')) {
    const store = sqliteStore(await tempFile());
    const { hooks, all } = counter(events);
    const receiver = createReceiver({ secret: SECRET, store, logger: false, inbox: { pollIntervalMs: 5 }, handlers: hooks });
    result.mixedReceive = await receiveAll(receiver);
    const start = cpu();
    await all;
    await receiver.inbox.drain({ timeoutMs: 600_000 });
    result.mixedDrain = (cpu() - start) / events;
    result.mixed = result.mixedReceive + result.mixedDrain;
    await receiver.close();
    await store.close();
  }
  if (phases.has('direct')) {
    const store = sqliteStore(await tempFile());
    const { hooks } = counter(events);
    const receiver = createReceiver({ secret: SECRET, store, logger: false, handlers: hooks });
    result.direct = await receiveAll(receiver);
    await receiver.close();
    await store.close();
  }
  if (phases.has('store')) {
    const store = sqliteStore(await tempFile());
    const { inbox } = store;
    const now = Date.now();
    let start = cpu();
    for (let i = 0; i < events; i += WAVE) {
      await Promise.all(
        requests.slice(i, i + WAVE).map((_, j) =>
          inbox.enqueue({
            eventId: `evt_store_${i + j}`,
            eventType: 'invoice.paid',
            created: now,
            rawBody: requests[i + j].rawBody,
            headers: { 'content-type': 'application/json', 'user-agent': 'bench/1.0', 'x-svc-timestamp': String(now), 'x-request-id': `req-${i + j}` },
            verified: { secretIndex: 0, signatureScheme: 'v1' },
            receivedAt: now + i,
            version: null,
          }),
        ),
      );
    }
    result.storeEnqueue = (cpu() - start) / events;
    let claimCpu = 0;
    let completeCpu = 0;
    for (let done = 0; done < events; ) {
      start = cpu();
      const claimed = await inbox.claim(now + events, 60_000, 10);
      const middle = cpu();
      await Promise.all(claimed.map((event) => inbox.complete(event.eventId, event.token, now + events, {})));
      completeCpu += cpu() - middle;
      claimCpu += middle - start;
      done += claimed.length;
      if (claimed.length === 0) throw new Error('nothing claimed');
    }
    result.storeClaim = claimCpu / events;
    result.storeComplete = completeCpu / events;
    await store.close();
  }
} finally {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
for (const [key, value] of Object.entries(result)) if (key !== 'events' && key !== 'prefill') result[key] = Math.round(value * 10) / 10;
console.log(JSON.stringify(result));
