import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createReceiver, Webhooks, type IdempotencyStore } from '../../src/index.js';
import { MIN_RETENTION_MS } from '../../src/ports/idempotency-store.js';
import { createTestEvent, signedRequest } from '../../src/testing/index.js';

/*
 * A receiver in inbox mode on each store, end to end: what this package's own tests add to the
 * published inbox contract (src/testing/inbox-contract.ts), run by test/helpers/contracts.ts.
 */

const SECRET = 'whsec_inboxContractSecret000000000000';

export function describeReceiverOnInbox(name: string, create: (options: { retentionMs: number }) => Promise<IdempotencyStore> | IdempotencyStore): void {
  describe(`${name}: a receiver on the inbox`, () => {
    let store: IdempotencyStore;
    beforeEach(async () => {
      store = await create({ retentionMs: MIN_RETENTION_MS });
    });
    afterEach(async () => {
      await store.close();
    });

    it("keeps what a receiver's failing handler threw as last_error: its class and message, one line, cut at 1 kB", async () => {
      const thrown = new TypeError(`Kunde cus_1 nicht gefunden\nHTTP 404 ${'€'.repeat(400)}`);
      const receiver = createReceiver({
        secret: SECRET,
        store,
        logger: false,
        inbox: { pollIntervalMs: 5, retryDelaysMs: [] },
        handlers: new Webhooks().on('invoice.paid', () => {
          throw thrown;
        }),
      });
      try {
        const event = createTestEvent('invoice.paid');
        const { body, headers } = signedRequest(event, SECRET);
        expect((await receiver.receive({ rawBody: body, headers, method: 'POST' })).status).toBe(200);
        await receiver.inbox.drain();
        // At most 1 024 bytes: the 47-byte start, 324 × "€" (972 bytes), "…" (3 bytes); a 325th "€" would not fit.
        const kept = `TypeError: Kunde cus_1 nicht gefunden HTTP 404 ${'€'.repeat(324)}…`;
        expect(Buffer.byteLength(kept)).toBe(1_022);
        expect(await receiver.inbox.get(event.id)).toMatchObject({ status: 'dead', last_error: { code: 'HANDLER_FAILED', message: kept } });
      } finally {
        await receiver.close();
      }
    });
  });
}
