import { describe, expect, it } from 'vitest';
import { MAX_REPLAY_EVENTS, replayRange } from '../../src/dispatcher/replay.js';
import type { DispatchStore, StoredWebhook } from '../../src/ports/dispatch-store.js';

/*
 * The cap of one replay, without filling a database with 10 001 events: a store that says the
 * range holds that many.
 */

const NOW = Date.UTC(2026, 11, 1);

function storeHolding(events: number, replayEvents = true): DispatchStore {
  const webhook = { id: 'wh_1', business_id: 'biz_1', scope: 'business', events: ['*'] } as unknown as StoredWebhook;
  return {
    getWebhook: (id: string) => Promise.resolve(id === webhook.id ? webhook : undefined),
    countEvents: () => Promise.resolve(events),
    listEvents: () => Promise.reject(new Error('not read: the count refuses first')),
    ...(replayEvents ? { replayEvents: () => Promise.resolve(0) } : {}),
  } as unknown as DispatchStore;
}

const context = (store: DispatchStore) => ({ store, now: NOW, retentionMs: 30 * 86_400_000, firstWaitMs: 0 });

describe('webhooks.replay: its bounds', () => {
  it(`refuses a range of more than MAX_REPLAY_EVENTS (${MAX_REPLAY_EVENTS}) events with REPLAY_TOO_LARGE, saying how many`, async () => {
    await expect(replayRange('wh_1', { from: NOW - 1000 }, context(storeHolding(MAX_REPLAY_EVENTS + 1)))).rejects.toMatchObject({
      code: 'REPLAY_TOO_LARGE',
      details: { events: MAX_REPLAY_EVENTS + 1, max: MAX_REPLAY_EVENTS },
    });
  });

  it('answers REPLAY_UNSUPPORTED on a store without replayEvents', async () => {
    await expect(replayRange('wh_1', { from: NOW - 1000 }, context(storeHolding(1, false)))).rejects.toMatchObject({ code: 'REPLAY_UNSUPPORTED' });
  });
});
