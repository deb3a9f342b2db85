import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { IdempotencyStore } from '../../src/index.js';
import { loadBuilt, root } from './dist.js';

const SECRET = 'whsec_inboxCrashSecret00000000000000';
const EVENTS = 20;

/**
 * A receiver process in inbox mode takes 20 events (all answered 200 queued), starts the
 * handlers of some of them, and is SIGKILLed. A receiver started afterwards on the same store —
 * its clock past the dead process's leases — runs every one of them once.
 */
export async function killedWithEventsPending(processArgs: string[], openStore: () => IdempotencyStore): Promise<void> {
  const [{ createReceiver, Webhooks }, { createTestEvent, signedRequest }] = await Promise.all([loadBuilt('index'), loadBuilt('testing')]);
  const child = spawn(process.execPath, [join(root, 'test/fixtures/inbox-receiver-process.mjs'), SECRET, ...processArgs], { stdio: ['ignore', 'pipe', 'inherit'] });
  const started = new Set<string>();
  let onStarted = () => undefined as void;
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the receiver process exited with ${code}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as { port?: number; started?: string };
      if (message.port !== undefined) resolve(message.port);
      if (message.started !== undefined) {
        started.add(message.started);
        onStarted();
      }
    });
  });
  const events = Array.from({ length: EVENTS }, (_, i) => createTestEvent(i % 2 ? 'invoice.paid' : 'customer.updated'));
  try {
    for (const event of events) {
      const { body, headers } = signedRequest(event, SECRET);
      const answer = await fetch(`http://127.0.0.1:${port}/webhooks`, { method: 'POST', body, headers });
      expect(await answer.json()).toMatchObject({ queued: true });
    }
    await new Promise<void>((resolve) => {
      onStarted = () => void (started.size >= 5 && resolve());
      onStarted();
    });
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  expect(started.size).toBe(5);

  const handled: string[] = [];
  const store = openStore();
  const receiver = createReceiver({
    secret: SECRET,
    store,
    logger: false,
    // Past the killed process's leases (60 s budget + 30 s): what it held is taken over.
    clock: () => Date.now() + 5 * 60_000,
    inbox: { pollIntervalMs: 10 },
    handlers: new Webhooks().onAny((event) => void handled.push(event.id)),
  });
  try {
    await receiver.inbox.drain();
    expect(handled.sort()).toEqual(events.map((event) => event.id).sort());
    expect(await receiver.inbox.stats()).toMatchObject({ done: EVENTS, pending: 0, processing: 0, dead: 0 });
    const taken = await Promise.all([...started].map((id) => receiver.inbox.get(id)));
    // The runs the killed process started count: the takeover is their second.
    expect(taken.map((event) => event?.attempts)).toEqual([2, 2, 2, 2, 2]);
  } finally {
    await receiver.close();
    await store.close();
  }
}
