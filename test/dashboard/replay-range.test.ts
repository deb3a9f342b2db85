import { describe, expect, it } from 'vitest';
import { createTestEvent } from '../../src/testing/index.js';
import { BUSINESS_ID } from '../dispatcher/fixtures.js';
import { FakeClock } from '../helpers/clock.js';
import { BASE, setup } from './fixtures.js';

/*
 * The registration page's replay form over real HTTP: it posts with the CSRF token, queues the
 * range once (a second post skips what is pending), says what it did, refuses bad input with its
 * code, and refuses a post without the token.
 */

describe('dashboard: replay a time range from the registration page', () => {
  it('queues the range once more, marked replay; a second post skips what is pending; bad input and a missing token are refused', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 27, 18, 0, 0));
    const s = await setup({ dispatcher: { clock: clock.now }, clock: clock.now });
    for (const type of ['invoice.paid', 'invoice.sent', 'customer.created'] as const) {
      await s.dispatcher.emit(createTestEvent(type, { business_id: BUSINESS_ID }));
      clock.advance(60_000);
    }
    const webhook = await s.dispatcher.webhooks.create({ business_id: BUSINESS_ID, url: s.targetUrl, events: ['invoice.*'] });
    const page = await s.client.get(`${BASE}/webhooks/${webhook.id}`);
    expect(page.text).toContain(`action="${BASE}/webhooks/${webhook.id}/replay"`);

    const form = { from: '2026-11-27T18:00:00', to: '2026-11-27T19:00:00' };
    const first = await s.client.post(`${BASE}/webhooks/${webhook.id}/replay`, form);
    expect(first.status).toBe(200);
    expect(first.text).toContain('Replay: 2 event(s) in the range, 2 queued.');
    const replays = await s.dispatcher.deliveries.list({ webhook_id: webhook.id });
    expect(replays.map((delivery) => delivery.replay)).toEqual([true, true]);
    const second = await s.client.post(`${BASE}/webhooks/${webhook.id}/replay`, { ...form, types: 'invoice.paid' });
    expect(second.text).toContain('Replay: 1 event(s) in the range, 0 queued; 1 skipped (a delivery to it is still pending).');

    await s.dispatcher.runDue();
    expect(s.target.requests).toHaveLength(2);
    const list = await s.client.get(`${BASE}/deliveries?webhook_id=${webhook.id}`);
    expect(list.text).toContain('(replay)');

    const refused = await s.client.post(`${BASE}/webhooks/${webhook.id}/replay`, { from: '2026-11-27T19:00:00', to: '2026-11-27T18:00:00' });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('(VALIDATION_ERROR)');
    const forged = await s.client.post(`${BASE}/webhooks/${webhook.id}/replay`, { ...form, _csrf: 'forged' });
    expect(forged.status).toBe(403);
    expect(await s.dispatcher.deliveries.count({ webhook_id: webhook.id })).toBe(2);
  });
});
