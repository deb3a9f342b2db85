// Catch-up's throughput: N events in the sandbox's feed (customers created over its API, with no
// webhook registered: the receiver was never told), then a receiver in the default configuration
// (a SQLite file, inbox mode, the ordering guard) catches up over HTTP on 127.0.0.1 and its inbox
// is drained. Prints events/s of the feed read (events stored in the inbox) and of the whole
// (until every handler ran), and the process's RSS before and after.
// Usage: node bench/catch-up.mjs <events> → prints {"events","catchUpEventsPerSecond","handledEventsPerSecond","rssMiB"}
// (`npm run build` first: it runs the built package, as a user's process does.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReceiver, sqliteStore, Webhooks } from '../dist/index.js';
import { createClient } from '../dist/client.js';
import { createSandbox } from '../dist/sandbox.js';

const events = Number(process.argv[2] ?? 10_000);
const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-bench-catch-up-'));
const mib = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10;
const sandbox = await createSandbox({ seed: 10, plan: 'business', database: join(dir, 'sandbox.db') });
try {
  const since = sandbox.now();
  for (let i = 0; i < events; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, events - i) }, (_, j) =>
        fetch(`${sandbox.url}/customers`, {
          method: 'POST',
          headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `Kunde ${i + j} GmbH` }),
        }).then((answer) => answer.text()),
      ),
    );
  }
  let handled = 0;
  const store = sqliteStore(join(dir, 'webhook-events.db'));
  const receiver = createReceiver({
    secret: 'whsec_benchCatchUpSecret00000000000000',
    store,
    logger: false,
    inbox: { pollIntervalMs: 5 },
    ordering: true,
    handlers: new Webhooks().onAny(() => void handled++),
  });
  const client = createClient({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });
  const rssBefore = process.memoryUsage().rss;
  const start = performance.now();
  const summary = await receiver.catchUp({ client, since });
  const read = (performance.now() - start) / 1000;
  await receiver.inbox.drain({ timeoutMs: 600_000 });
  const whole = (performance.now() - start) / 1000;
  const rssAfter = process.memoryUsage().rss;
  await receiver.close();
  await store.close();
  if (summary.read !== events || handled !== events) throw new Error(`read ${summary.read}, handled ${handled} of ${events}`);
  console.log(JSON.stringify({ events, catchUpEventsPerSecond: Math.round(events / read), handledEventsPerSecond: Math.round(events / whole), rssMiB: { before: mib(rssBefore), after: mib(rssAfter) } }));
} finally {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
}
