import { describe, expect, it } from 'vitest';
import { createTestEvent } from '../../src/testing/index.js';
import { BASE, setup } from './fixtures.js';

/** The number on a card whose label starts with `label`. */
function card(text: string, label: string): number {
  const match = new RegExp(`<span class="count">(\\d+)</span>${label}`).exec(text);
  if (!match) throw new Error(`no card "${label}"`);
  return Number(match[1]);
}

const HOUR = 3_600_000;

describe('the received side: counts agree between the overview, Received events and the Inbox', () => {
  it('inbox mode: 55 handled, 5 dead; the inbox pages 50 at a time, filters by status and type, shows the handler\'s error', async () => {
    const s = await setup({ inbox: true });
    for (let index = 0; index < 55; index++) expect(await s.receive(createTestEvent('invoice.paid'))).toBe(200);
    await s.receiver.inbox.drain();
    s.handlers.failing = true;
    for (let index = 0; index < 5; index++) expect(await s.receive(createTestEvent('customer.created'))).toBe(200);
    await s.receiver.inbox.drain();

    const overview = (await s.client.get(`${BASE}/`)).text;
    expect(card(overview, 'handled events')).toBe(55);
    expect(card(overview, 'dead in the inbox')).toBe(5);
    const received = (await s.client.get(`${BASE}/receiver/events`)).text;
    expect(card(received, 'handled')).toBe(55);
    expect(received).toContain('0 directly, 55 through the inbox');
    const inbox = (await s.client.get(`${BASE}/receiver/inbox`)).text;
    expect(card(inbox, 'done')).toBe(55);
    expect(card(inbox, 'dead')).toBe(5);
    expect(inbox).toContain('Showing <strong>1–50</strong> of <strong>60</strong> events · page 1 of 2');

    const done2 = (await s.client.get(`${BASE}/receiver/inbox?status=done&page=2`)).text;
    expect(done2).toContain('Showing <strong>51–55</strong> of <strong>55</strong> events · page 2 of 2');
    expect(done2.match(/<tr><td><time/g)).toHaveLength(5);
    expect(done2).toContain('rel="prev"');
    const byType = (await s.client.get(`${BASE}/receiver/inbox?type=customer.created`)).text;
    expect(byType).toContain('of <strong>5</strong> events');
    expect(byType.match(/<code>HANDLER_FAILED<\/code> Error: the handler is down/g)).toHaveLength(5);
    expect(byType).toContain('<option value="customer.created" selected>');
  });

  it('direct mode and what an inbox-mode run left, on one store: the totals add up, stale events are marked and filtered', async () => {
    const s = await setup();
    for (let index = 0; index < 3; index++) expect(await s.receive(createTestEvent('invoice.paid'))).toBe(200);
    const inbox = s.receiver.store.inbox!;
    const now = Date.now();
    for (const [index, id] of ['evt_left_1', 'evt_left_2', 'evt_left_stale'].entries()) {
      await inbox.enqueue({ eventId: id, eventType: 'invoice.paid', created: now, rawBody: Buffer.from('{}'), headers: {}, verified: { secretIndex: 0, signatureScheme: 'v1' }, receivedAt: now - (3 - index) * HOUR, version: null });
    }
    const claimed = await inbox.claim(now, 60_000, 10);
    for (const event of claimed) await inbox.complete(event.eventId, event.token, now, { stale: event.eventId === 'evt_left_stale' });

    const overview = (await s.client.get(`${BASE}/`)).text;
    expect(card(overview, 'handled events')).toBe(5);
    expect(card(overview, 'skipped as stale')).toBe(1);
    const received = (await s.client.get(`${BASE}/receiver/events`)).text;
    expect(card(received, 'handled')).toBe(5);
    expect(received).toContain('3 directly, 2 through the inbox');
    expect(received).toContain('1 skipped as stale</a> by the ordering guard');
    const inboxPage = (await s.client.get(`${BASE}/receiver/inbox`)).text;
    expect(card(inboxPage, 'done')).toBe(3);
    expect(inboxPage).toContain('2 handled, 1 skipped as stale');
    const stale = (await s.client.get(`${BASE}/receiver/inbox?status=done&stale=1`)).text;
    expect(stale).toContain('of <strong>1</strong> events');
    expect(stale).toContain('evt_left_stale');
    expect(stale).toContain('<span class="status status-stale">skipped as stale</span>');
    expect(stale).not.toContain('evt_left_1');
    const range = (await s.client.get(`${BASE}/receiver/inbox?from=${new Date(now - 2.5 * HOUR).toISOString()}&to=${new Date(now).toISOString()}`)).text;
    expect(range).toContain('of <strong>2</strong> events');
  });
});
