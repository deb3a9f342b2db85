import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../../src/index.js';
import { createTestEvent } from '../../../src/testing/index.js';
import { BASE, oneDelivery, setup } from '../fixtures.js';
import { expectAccessible, openPage, useBrowser } from './chromium.js';
import { screenshot } from './screenshots.js';

/*
 * Every action of the dashboard clicked through in headless Chromium against a real dispatcher,
 * a real target server and a real receiver on loopback; each effect is checked in the database
 * (through the Dispatcher and the receiver's store) and on the page. Every page visited is
 * scanned by axe-core.
 */
const browser = useBrowser();

describe('registrations', () => {
  it('create with a custom header, edit it, send a test, rotate the secret, disable and enable', async () => {
    const s = await setup();
    const { page, watch } = await openPage(browser());
    await page.goto(`${s.origin}${BASE}/webhooks`);
    await expectAccessible(page);
    await page.getByRole('link', { name: 'Register a webhook' }).click();
    await expectAccessible(page);
    await page.getByLabel(/Receiver URL/).fill(s.targetUrl);
    await page.getByLabel('invoice.* (all)').check();
    await page.getByLabel('payment.received').check();
    await page.getByLabel(/Custom headers/).fill('X-Api-Key: key-one');
    await screenshot(page, 'register');
    await page.getByRole('button', { name: 'Register' }).click();

    const secret = (await page.locator('#secret').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    const [webhook] = await s.dispatcher.webhooks.list();
    expect(webhook).toMatchObject({ url: s.targetUrl, events: ['invoice.*', 'payment.received'], headers: { 'x-api-key': 'key-one' }, status: 'active' });
    await expectAccessible(page);
    await page.goto(`${s.origin}${BASE}/webhooks/${webhook!.id}`);
    expect(await page.content()).not.toContain(secret);

    await page.getByLabel(/Custom headers/).fill('X-Api-Key: key-two');
    await page.getByRole('button', { name: 'Save the registration' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('saved');
    expect((await s.dispatcher.webhooks.get(webhook!.id)).headers).toEqual({ 'x-api-key': 'key-two' });

    await page.getByRole('button', { name: 'Send a test delivery' }).click();
    await page.getByText('A test delivery was sent').waitFor();
    expect(await page.locator('section.attempt').first().textContent()).toContain('204');
    expect(s.target.requests).toHaveLength(1);
    expect(s.target.requests[0]!.headers['x-api-key']).toBe('key-two');
    await expectAccessible(page);

    await page.goto(`${s.origin}${BASE}/webhooks/${webhook!.id}`);
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    const rotated = (await page.locator('#secret').textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await s.dispatcher.sendTest(webhook!.id);
    const signed = s.target.requests[1]!;
    expect(() => verifySignature({ payload: signed.body, signature: String(signed.headers['x-svc-signature']), timestamp: String(signed.headers['x-svc-timestamp']), secret: rotated })).not.toThrow();

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('The registration is disabled').waitFor();
    expect((await s.dispatcher.webhooks.get(webhook!.id)).status).toBe('disabled');
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByText('The registration is enabled').waitFor();
    expect((await s.dispatcher.webhooks.get(webhook!.id)).status).toBe('active');
    await screenshot(page, 'registration');
    expect(watch).toEqual({ dialogs: [], errors: [] });
  });
});

describe('deliveries', () => {
  it('filter, open a delivery in its own tab, copy the payload, retry one, retry all matching', async () => {
    let status = 500;
    const s = await setup({ answer: () => status });
    const webhook = await s.dispatcher.webhooks.create({ url: s.targetUrl, events: ['*'] });
    for (const type of ['invoice.paid', 'invoice.sent', 'customer.created', 'payment.received'] as const) await s.dispatcher.emit(createTestEvent(type));
    await s.dispatcher.runDue();
    const { context, page, watch } = await openPage(browser());
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.origin });

    await page.goto(`${s.origin}${BASE}/deliveries`);
    await expectAccessible(page);
    await page.getByLabel('Status', { exact: true }).selectOption('retrying');
    await page.getByLabel('Last HTTP status').selectOption('5xx');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/status=retrying/);
    expect(page.url()).toContain('http=5xx');
    const retrying = await s.dispatcher.deliveries.count({ status: 'retrying', response_status_class: '5xx' });
    expect(await page.locator('.pager').first().textContent()).toContain(`of ${retrying} deliveries`);
    await screenshot(page, 'deliveries');

    await page.locator('tbody tr a').first().click();
    await page.waitForURL(/\/deliveries\/dlv_/);
    const deliveryUrl = page.url();
    const deliveryId = deliveryUrl.split('/').at(-1)!;
    await expectAccessible(page);
    const payload = (await page.locator('#payload').textContent())!;
    expect(payload).toContain('\n  "id": "evt_');
    await page.getByRole('button', { name: 'Copy the request payload' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(payload);
    await screenshot(page, 'delivery');

    const tab = await context.newPage();
    await tab.goto(deliveryUrl);
    expect(await tab.locator('h1').textContent()).toBe(await page.locator('h1').textContent());
    await tab.close();

    status = 200;
    await page.getByRole('button', { name: 'Retry now' }).click();
    await page.getByText('The delivery was retried now').waitFor();
    const retried = await s.dispatcher.deliveries.get(deliveryId);
    expect(retried).toMatchObject({ status: 'delivered', attempt_count: 2 });
    expect(await page.locator('section.attempt').count()).toBe(2);

    await page.goto(`${s.origin}${BASE}/deliveries?status=retrying&webhook_id=${webhook.id}`);
    const left = await s.dispatcher.deliveries.count({ status: 'retrying' });
    expect(left).toBeGreaterThan(0);
    await page.getByRole('link', { name: `Retry all ${left} matching…` }).click();
    expect(await page.locator('#match-count').textContent()).toBe(String(left));
    await expectAccessible(page);
    await screenshot(page, 'retry-all');
    await page.getByRole('button', { name: `Retry all ${left}` }).click();
    expect(await page.locator('#retried-count').textContent()).toBe(String(left));
    expect(await s.dispatcher.deliveries.count({ status: 'retrying' })).toBe(0);
    expect(watch).toEqual({ dialogs: [], errors: [] });
  });

  it('retry all says clearly when the manual-retry limit is reached', async () => {
    const s = await setup({ answer: () => 500, dispatcher: { manualRetryLimit: { max: 2, windowMs: 15 * 60_000 } } });
    await s.dispatcher.webhooks.create({ url: s.targetUrl, events: ['*'] });
    for (let index = 0; index < 4; index++) await s.dispatcher.emit(createTestEvent('invoice.overdue'));
    await s.dispatcher.runDue();
    const { page } = await openPage(browser());
    await page.goto(`${s.origin}${BASE}/deliveries/retry?status=retrying`);
    expect(await page.getByText('Only the newest 2 can be retried now').count()).toBe(1);
    await page.getByRole('button', { name: 'Retry the newest 2' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('The manual-retry limit is reached: at most 2 retries per 15 minutes');
    expect(await page.locator('#retried-count').textContent()).toBe('2');
    expect(s.target.requests).toHaveLength(6);
  });
});

describe('the receiving side', () => {
  it('handled events by outcome; reprocess a quarantined payload (and one that still fails)', async () => {
    const s = await setup();
    for (const type of ['invoice.paid', 'customer.updated'] as const) expect(await s.receive(createTestEvent(type))).toBe(200);
    const invalid = { ...createTestEvent('invoice.paid'), data: { object: { amount: 'lots' } } };
    expect(await s.receive(invalid)).toBe(422);
    const later = createTestEvent('uva.confirmed');
    const kept = await s.receiver.store.quarantine.put({
      reason: 'unknown_event_type',
      event_id: later.id,
      event_type: later.type,
      error_code: 'UNKNOWN_EVENT_TYPE',
      error_message: 'Unknown event type "uva.confirmed" (kept by an older version)',
      raw_body: Buffer.from(JSON.stringify(later)),
      received_at: Date.now(),
    });
    const { page, watch } = await openPage(browser());

    await page.goto(`${s.origin}${BASE}/receiver/events`);
    await expectAccessible(page);
    expect(await page.locator('.card .count').first().textContent()).toBe('2');
    await screenshot(page, 'received');

    await page.getByRole('link', { name: 'Quarantine', exact: true }).click();
    await expectAccessible(page);
    await page.getByRole('link', { name: 'invoice.paid' }).click();
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Reprocess' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('still does not validate');
    expect(await s.receiver.store.quarantine.list()).toHaveLength(2);

    await page.goto(`${s.origin}${BASE}/receiver/quarantine/${kept.id}`);
    await page.getByRole('button', { name: 'Reprocess' }).click();
    await page.getByText('left the quarantine').waitFor();
    expect((await s.receiver.store.quarantine.list()).map((entry) => entry.id)).not.toContain(kept.id);
    await page.goto(`${s.origin}${BASE}/receiver/events?state=completed`);
    expect(await page.getByText(later.id).count()).toBe(1);
    // The one refused reprocess answered 422 on purpose; nothing else went wrong.
    expect(watch.errors.filter((error) => !error.includes('status of 422'))).toEqual([]);
    expect(watch.dialogs).toEqual([]);
  });
});

describe('the inbox', () => {
  it('shows a dead event with its error, and retries it until the handlers succeed', async () => {
    const s = await setup({ inbox: true });
    s.handlers.failing = true;
    const event = createTestEvent('invoice.overdue');
    expect(await s.receive(event)).toBe(200);
    await s.receiver.inbox.drain();
    expect(await s.receiver.inbox.get(event.id)).toMatchObject({ status: 'dead', last_error: { code: 'HANDLER_FAILED' } });
    const { page, watch } = await openPage(browser());

    await page.goto(`${s.origin}${BASE}/`);
    await expectAccessible(page);
    await page.getByRole('link', { name: /dead in the inbox/ }).click();
    await expectAccessible(page);
    expect(await page.locator('tbody tr').count()).toBe(1);
    await screenshot(page, 'inbox');
    await page.getByRole('link', { name: 'invoice.overdue' }).click();
    await expectAccessible(page);
    expect(await page.locator('main').textContent()).toContain('HANDLER_FAILED');

    s.handlers.failing = false;
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByText('The event is pending again').waitFor();
    await s.receiver.inbox.drain();
    expect(await s.receiver.inbox.get(event.id)).toMatchObject({ status: 'done' });
    await page.reload();
    expect(await page.locator('.status').first().textContent()).toBe('done');
    expect(await page.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    expect(watch).toEqual({ dialogs: [], errors: [] });
  });
});

describe('without JavaScript', () => {
  it('lists with filters and retries by plain form posts', async () => {
    const s = await setup({ answer: () => 500 });
    const { delivery } = await oneDelivery(s);
    const { page } = await openPage(browser(), { javaScript: false });
    await page.goto(`${s.origin}${BASE}/deliveries`);
    await page.getByLabel('Status', { exact: true }).selectOption('retrying');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/status=retrying/);
    expect(await page.locator('.pager').first().textContent()).toContain('of 1 deliveries');
    await page.locator('tbody tr a').first().click();
    await page.getByRole('button', { name: 'Retry now' }).click();
    await page.getByText('The delivery was retried now').waitFor();
    expect((await s.dispatcher.deliveries.get(delivery.id)).attempt_count).toBe(2);
    expect(await page.getByRole('button', { name: 'Copy the request payload' }).isVisible()).toBe(false);
  });
});
