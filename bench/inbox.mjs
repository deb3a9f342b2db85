// The inbox worker's throughput: N events stored by a stopped receiver, then a receiver (default
// concurrency, trivial handlers) started on the file and timed until the inbox is drained.
// Usage: node bench/inbox.mjs <events> → prints {"eventsPerSecond"}
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReceiver, sqliteStore, Webhooks } from '../dist/index.js';
import { createTestEvent, signedRequest } from '../dist/testing.js';

const events = Number(process.argv[2] ?? 10_000);
const secret = 'whsec_benchInboxSecret000000000000000';
const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-bench-inbox-'));
const file = join(dir, 'events.db');
try {
  const store = sqliteStore(file);
  const filler = createReceiver({ secret, store, logger: false, inbox: true });
  await filler.close();
  for (let i = 0; i < events; i += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, events - i) }, () => {
        const { body, headers } = signedRequest(createTestEvent('invoice.paid'), secret);
        return filler.receive({ rawBody: body, headers, method: 'POST' });
      }),
    );
  }
  let handled = 0;
  const start = performance.now();
  const receiver = createReceiver({ secret, store, logger: false, inbox: { pollIntervalMs: 5 }, handlers: new Webhooks().onAny(() => void handled++) });
  await receiver.inbox.drain({ timeoutMs: 600_000 });
  const seconds = (performance.now() - start) / 1000;
  await receiver.close();
  await store.close();
  if (handled !== events) throw new Error(`handled ${handled} of ${events}`);
  console.log(JSON.stringify({ eventsPerSecond: events / seconds }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
