import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createReceiver, memoryStore, sqliteStore, Webhooks, type IdempotencyStore, type WebhookEvent } from '../../src/index.js';
import { signedRequest } from '../../src/testing/index.js';
import { appliedInOrder, lifecycleEvents, type ObjectRow } from './lifecycles.js';

const SECRET = 'whsec_orderingPropertySecret00000000';
const OBJECTS = 100;
const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-ordering-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/**
 * The handler of an application that keeps one row per object: a current event replaces the row
 * with its snapshot; a stale one (only creation events reach it) adds what is missing and never
 * overwrites; a creation event's side effect (the booking, the e-mail) is counted.
 */
function applyingHandlers(rows: Map<string, ObjectRow>): Webhooks {
  return new Webhooks().onAny((event, context) => {
    const key = event.data.object.id;
    const current = rows.get(key);
    const creation = ['invoice.created', 'customer.created', 'payment.received', 'subscription.created', 'uva.submitted'].includes(event.type);
    const creations = (current?.creations ?? 0) + (creation ? 1 : 0);
    if (context.stale && current) rows.set(key, { ...current, creations });
    else rows.set(key, { type: event.type, seq: (event.data.object as unknown as { seq: number }).seq, creations });
  });
}

/** Every event in a shuffled order, some of them twice (the sender's retries). */
const deliveries = fc
  .tuple(fc.array(fc.nat(3), { minLength: OBJECTS, maxLength: OBJECTS }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1200, maxLength: 1200 }))
  .map(([variants, randoms]) => {
    const lifecycles = lifecycleEvents(variants);
    const events = lifecycles.flat();
    // A duplicate for every fifth event, then a shuffle by random keys.
    const withDuplicates = [...events, ...events.filter((_, i) => i % 5 === 0)];
    const order = withDuplicates.map((event, i) => ({ event, key: randoms[i % randoms.length]! + i * 1e-9 })).sort((a, b) => a.key - b.key);
    return { lifecycles, order: order.map((entry) => entry.event) };
  });

async function deliverAll(mode: 'direct' | 'inbox', store: IdempotencyStore, order: WebhookEvent[]): Promise<Map<string, ObjectRow>> {
  const rows = new Map<string, ObjectRow>();
  const receiver = createReceiver({
    secret: SECRET,
    handlers: applyingHandlers(rows),
    store,
    logger: false,
    ordering: true,
    ...(mode === 'inbox' ? { inbox: { pollIntervalMs: 5, concurrency: 8 } } : {}),
  });
  try {
    for (const event of order) {
      const { body, headers } = signedRequest(event, SECRET);
      const answer = await receiver.receive({ rawBody: body, headers, method: 'POST' });
      expect(answer.status).toBe(200);
    }
    if (mode === 'inbox') await receiver.inbox.drain();
    return rows;
  } finally {
    await receiver.close();
    await store.close();
  }
}

describe.each(['direct', 'inbox'] as const)('the ordering guard, %s mode', (mode) => {
  it(`ends with the rows of applying ${OBJECTS} objects' events in order, whatever order and how often they arrive`, async () => {
    await fc.assert(
      fc.asyncProperty(deliveries, async ({ lifecycles, order }) => {
        const rows = await deliverAll(mode, memoryStore(), order);
        expect(rows).toEqual(appliedInOrder(lifecycles));
      }),
      { numRuns: 15 },
    );
  });

  it('does the same on SQLite', async () => {
    await fc.assert(
      fc.asyncProperty(deliveries, async ({ lifecycles, order }) => {
        const rows = await deliverAll(mode, sqliteStore(join(dir, `ordering-${files++}.db`)), order);
        expect(rows).toEqual(appliedInOrder(lifecycles));
      }),
      { numRuns: 3 },
    );
  });
});
