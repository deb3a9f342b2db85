import * as ed from '@noble/ed25519';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { describe, expect, it } from 'vitest';
import { DispatcherError } from '../../src/dispatcher.js';
import { verifySignature } from '../../src/signing/signature.js';
import { verifyStandardWebhook } from '../../src/signing/standard-webhooks.js';
import { createTestEvent } from '../../src/testing/index.js';
import { FakeClock } from '../helpers/clock.js';
import { withServer } from '../helpers/server.js';
import { MINUTE, Receiver, testDispatcher, type ReceivedRequest } from './fixtures.js';

/*
 * How a registration signs: the platform's headers, Standard Webhooks', or both; HMAC or ed25519;
 * a rotation with a grace. Every Standard Webhooks delivery is also checked by libraries nobody
 * here wrote: the reference `standardwebhooks` package and `svix` for v1, `@noble/ed25519` for v1a.
 * Their checks read the real time, so the dispatcher's clock starts now and moves by minutes.
 */

const URL_ = 'http://127.0.0.1:9/hook';

function header(request: ReceivedRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function standardHeaders(request: ReceivedRequest): Record<string, string> {
  return { 'webhook-id': header(request, 'webhook-id')!, 'webhook-timestamp': header(request, 'webhook-timestamp')!, 'webhook-signature': header(request, 'webhook-signature')! };
}

/** The reference library's and svix's verdicts on a request, with the given secret. */
function peersAccept(request: ReceivedRequest, secret: string): boolean {
  const headers = standardHeaders(request);
  let reference = false;
  let svix = false;
  try {
    new StandardWebhook(secret).verify(request.body, headers);
    reference = true;
  } catch {
    reference = false;
  }
  try {
    new SvixWebhook(secret).verify(request.body, headers);
    svix = true;
  } catch {
    svix = false;
  }
  expect(svix).toBe(reference);
  return reference;
}

async function ed25519Accepts(request: ReceivedRequest, publicKey: string): Promise<boolean> {
  const message = new TextEncoder().encode(`${header(request, 'webhook-id')}.${header(request, 'webhook-timestamp')}.${request.body}`);
  const key = Buffer.from(publicKey.slice('whpk_'.length), 'base64');
  const results = await Promise.all(
    header(request, 'webhook-signature')!
      .split(' ')
      .filter((entry) => entry.startsWith('v1a,'))
      .map((entry) => ed.verifyAsync(Buffer.from(entry.slice(4), 'base64'), message, key)),
  );
  return results.includes(true);
}

async function withReceiver(body: (url: string, receiver: Receiver, clock: FakeClock) => Promise<void>, answer = 204): Promise<void> {
  const receiver = new Receiver(() => answer);
  await withServer(receiver.listener, (url) => body(url, receiver, new FakeClock(Date.now())));
}

describe("a registration's scheme", () => {
  it("is the platform's by default: x-svc-signature only, as before", async () => {
    await withReceiver(async (url, receiver, clock) => {
      const dispatcher = testDispatcher({ clock: clock.now });
      const { secret, scheme, algorithm } = await dispatcher.webhooks.create({ url, events: ['*'] });
      expect([scheme, algorithm]).toEqual(['svc', 'hmac-sha256']);
      await dispatcher.emit(createTestEvent('invoice.paid'));
      await dispatcher.runDue();
      const [request] = receiver.requests;
      expect(verifySignature({ payload: request!.body, signature: request!.headers['x-svc-signature'], timestamp: request!.headers['x-svc-timestamp'], secret, now: clock.now() }).secretIndex).toBe(0);
      expect(Object.keys(request!.headers).filter((name) => name.startsWith('webhook-'))).toEqual([]);
    });
  });

  it('standard-webhooks: webhook-id is the event id on every attempt, webhook-timestamp each attempt\'s seconds, v1 verified by standardwebhooks and svix', async () => {
    await withReceiver(async (url, receiver, clock) => {
      const dispatcher = testDispatcher({ clock: clock.now });
      const { secret, scheme } = await dispatcher.webhooks.create({ url, events: ['*'], scheme: 'standard-webhooks' });
      expect(scheme).toBe('standard-webhooks');
      const event = await dispatcher.emit(createTestEvent('invoice.paid', { data: { object: { customer_id: 'cus_Größe' } } }));
      await dispatcher.runDue();
      clock.advance(MINUTE);
      await dispatcher.runDue();
      expect(receiver.requests).toHaveLength(2);
      for (const [index, request] of receiver.requests.entries()) {
        expect(header(request, 'webhook-id')).toBe(event.id);
        expect(header(request, 'webhook-timestamp')).toBe(String(Math.floor(clock.now() / 1000) - (index === 0 ? 60 : 0)));
        expect(header(request, 'webhook-signature')).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
        expect(request.headers['x-svc-signature']).toBeUndefined();
        expect(peersAccept(request, secret)).toBe(true);
        expect(verifyStandardWebhook({ payload: request.body, ...idTimestampSignature(request), secret, now: clock.now() })).toMatchObject({ version: 'v1', id: event.id });
      }
      // A changed byte is refused by both peers.
      expect(peersAccept({ ...receiver.requests[0]!, body: receiver.requests[0]!.body.replace('Größe', 'Grösse') }, secret)).toBe(false);
    }, 500);
  });

  it('both: the platform\'s headers and Standard Webhooks\' on each request, from one secret', async () => {
    await withReceiver(async (url, receiver, clock) => {
      const dispatcher = testDispatcher({ clock: clock.now });
      const { secret } = await dispatcher.webhooks.create({ url, events: ['*'], scheme: 'both' });
      await dispatcher.emit(createTestEvent('customer.created'));
      await dispatcher.runDue();
      const [request] = receiver.requests;
      expect(verifySignature({ payload: request!.body, signature: request!.headers['x-svc-signature'], timestamp: request!.headers['x-svc-timestamp'], secret, now: clock.now() }).secretIndex).toBe(0);
      expect(header(request!, 'webhook-timestamp')).toBe(header(request!, 'x-svc-timestamp'));
      expect(peersAccept(request!, secret)).toBe(true);
    });
  });
});

function idTimestampSignature(request: ReceivedRequest) {
  return { id: request.headers['webhook-id'], timestamp: request.headers['webhook-timestamp'], signature: request.headers['webhook-signature'] };
}

describe('ed25519 registrations', () => {
  it('sign v1a with a key pair whose public key (whpk_) is the only key ever shown; @noble/ed25519 confirms each signature', async () => {
    await withReceiver(async (url, receiver, clock) => {
      const dispatcher = testDispatcher({ clock: clock.now });
      const created = await dispatcher.webhooks.create({ url, events: ['*'], scheme: 'standard-webhooks', algorithm: 'ed25519' });
      expect(created).toMatchObject({ algorithm: 'ed25519', public_key: expect.stringMatching(/^whpk_[A-Za-z0-9+/]{43}=$/) as string });
      expect(created.secret).toBe(created.public_key);
      const shown = JSON.stringify([created, await dispatcher.webhooks.list(), await dispatcher.webhooks.get(created.id)]);
      expect(shown).not.toContain('whsk_');
      await dispatcher.emit(createTestEvent('payment.received'));
      await dispatcher.runDue();
      const [request] = receiver.requests;
      expect(header(request!, 'webhook-signature')).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
      expect(await ed25519Accepts(request!, created.public_key!)).toBe(true);
      expect(await ed25519Accepts({ ...request!, body: `${request!.body} ` }, created.public_key!)).toBe(false);
      expect(verifyStandardWebhook({ payload: request!.body, ...idTimestampSignature(request!), secret: created.public_key!, now: clock.now() })).toMatchObject({ version: 'v1a', secretIndex: 0 });
    });
  });

  it('are refused with the platform\'s scheme or both: x-svc-signature is an HMAC', async () => {
    const dispatcher = testDispatcher();
    for (const scheme of ['svc', 'both'] as const) {
      await expect(dispatcher.webhooks.create({ url: URL_, events: ['*'], scheme, algorithm: 'ed25519' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'algorithm' } });
    }
    await expect(dispatcher.webhooks.create({ url: URL_, events: ['*'], algorithm: 'ed25519' })).rejects.toBeInstanceOf(DispatcherError);
    expect(await dispatcher.webhooks.list()).toEqual([]);
  });
});

describe('rotateSecret with a grace', () => {
  it('Standard Webhooks: both signatures in one header until the grace ends, each verified by standardwebhooks and svix; then the new one alone', async () => {
    await withReceiver(async (url, receiver, clock) => {
      const dispatcher = testDispatcher({ clock: clock.now });
      const { id, secret: oldSecret } = await dispatcher.webhooks.create({ url, events: ['*'], scheme: 'standard-webhooks' });
      const newSecret = await dispatcher.webhooks.rotateSecret(id, { graceMs: 2 * MINUTE });
      expect(newSecret).not.toBe(oldSecret);
      expect((await dispatcher.webhooks.get(id)).previous_secret_expires_at).toBe(new Date(clock.now() + 2 * MINUTE).toISOString());
      await dispatcher.emit(createTestEvent('invoice.paid'));
      await dispatcher.runDue();
      const during = receiver.requests[0]!;
      expect(header(during, 'webhook-signature')!.split(' ')).toHaveLength(2);
      expect(peersAccept(during, newSecret)).toBe(true);
      expect(peersAccept(during, oldSecret)).toBe(true);
      expect(verifyStandardWebhook({ payload: during.body, ...idTimestampSignature(during), secret: [oldSecret, newSecret], now: clock.now() }).secretIndex).toBe(1);

      clock.advance(2 * MINUTE);
      await dispatcher.emit(createTestEvent('invoice.sent'));
      await dispatcher.runDue();
      const after = receiver.requests[1]!;
      expect(header(after, 'webhook-signature')!.split(' ')).toHaveLength(1);
      expect(peersAccept(after, newSecret)).toBe(true);
      expect(peersAccept(after, oldSecret)).toBe(false);
    });
  });

  it("the platform's scheme: x-svc-signature keeps the previous secret's, x-svc-signature-next carries the new one's, until the grace ends", async () => {
    await withReceiver(async (url, receiver, clock) => {
      const dispatcher = testDispatcher({ clock: clock.now });
      const { id, secret: oldSecret } = await dispatcher.webhooks.create({ url, events: ['*'] });
      const newSecret = await dispatcher.webhooks.rotateSecret(id, { graceMs: MINUTE });
      await dispatcher.emit(createTestEvent('invoice.paid'));
      await dispatcher.runDue();
      clock.advance(MINUTE);
      await dispatcher.emit(createTestEvent('invoice.sent'));
      await dispatcher.runDue();
      const [during, after] = receiver.requests;
      const check = (request: ReceivedRequest, name: string, secret: string) => () =>
        verifySignature({ payload: request.body, signature: request.headers[name], timestamp: request.headers['x-svc-timestamp'], secret, now: clock.now() });
      expect(check(during!, 'x-svc-signature', oldSecret)).not.toThrow();
      expect(check(during!, 'x-svc-signature-next', newSecret)).not.toThrow();
      expect(check(after!, 'x-svc-signature', newSecret)).not.toThrow();
      expect(after!.headers['x-svc-signature-next']).toBeUndefined();
    });
  });

  it('ed25519: a new key pair, both v1a signatures during the grace, each confirmed by @noble/ed25519', async () => {
    await withReceiver(async (url, receiver, clock) => {
      const dispatcher = testDispatcher({ clock: clock.now });
      const { id, public_key: oldKey } = await dispatcher.webhooks.create({ url, events: ['*'], scheme: 'standard-webhooks', algorithm: 'ed25519' });
      const newKey = await dispatcher.webhooks.rotateSecret(id, { graceMs: MINUTE });
      expect(newKey).toMatch(/^whpk_/);
      expect((await dispatcher.webhooks.get(id)).public_key).toBe(newKey);
      await dispatcher.emit(createTestEvent('invoice.paid'));
      await dispatcher.runDue();
      const [request] = receiver.requests;
      expect(header(request!, 'webhook-signature')!.split(' ').map((entry) => entry.split(',')[0])).toEqual(['v1a', 'v1a']);
      expect(await ed25519Accepts(request!, newKey)).toBe(true);
      expect(await ed25519Accepts(request!, oldKey!)).toBe(true);
    });
  });

  it('without a grace the old secret stops at once, and a grace is whole milliseconds up to 30 days', async () => {
    const dispatcher = testDispatcher();
    const { id } = await dispatcher.webhooks.create({ url: URL_, events: ['*'], scheme: 'standard-webhooks' });
    await dispatcher.webhooks.rotateSecret(id, { graceMs: MINUTE });
    await dispatcher.webhooks.rotateSecret(id);
    expect((await dispatcher.webhooks.get(id)).previous_secret_expires_at).toBeNull();
    for (const graceMs of [-1, 1.5, 31 * 24 * 60 * MINUTE, Number.NaN, '60000']) {
      await expect(dispatcher.webhooks.rotateSecret(id, { graceMs: graceMs as number })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'graceMs' } });
    }
  });
});

describe('scheme and algorithm on update', () => {
  it('a scheme can change; the algorithm cannot, and unknown values are refused', async () => {
    const dispatcher = testDispatcher();
    const { id } = await dispatcher.webhooks.create({ url: URL_, events: ['*'] });
    expect(await dispatcher.webhooks.update(id, { scheme: 'both' })).toMatchObject({ scheme: 'both' });
    await expect(dispatcher.webhooks.update(id, { algorithm: 'ed25519' })).rejects.toMatchObject({ details: { field: 'algorithm', reason: 'cannot be changed' } });
    await expect(dispatcher.webhooks.update(id, { scheme: 'svix' as never })).rejects.toMatchObject({ details: { field: 'scheme' } });
    await expect(dispatcher.webhooks.create({ url: URL_, events: ['*'], algorithm: 'rsa' as never })).rejects.toMatchObject({ details: { field: 'algorithm' } });
    expect((await dispatcher.webhooks.get(id)).scheme).toBe('both');
  });

  it('custom headers may not take the Standard Webhooks names', async () => {
    const dispatcher = testDispatcher();
    await expect(dispatcher.webhooks.create({ url: URL_, events: ['*'], headers: { 'Webhook-Signature': 'v1,x' } })).rejects.toMatchObject({ code: 'FORBIDDEN_HEADER' });
  });
});
