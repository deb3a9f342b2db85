import { describe, expect, it } from 'vitest';
import { createReceiver, memoryStore, ReceiverError, type IdempotencyStore } from '../../src/index.js';
import { createTestEvent, signedRequest } from '../../src/testing/index.js';

const SECRET = 'whsec_coreReceiveSecret00000000000000';

describe('createReceiver: the framework-free core', () => {
  const receiver = createReceiver({ secret: SECRET, store: memoryStore(), logger: false });
  const receive = receiver.receive.bind(receiver);

  it('takes plain header objects in any case, and Fetch Headers', async () => {
    const first = signedRequest(createTestEvent('customer.deleted'), SECRET);
    const mixedCase = {
      'Content-Type': 'application/json',
      'X-Svc-Signature': first.headers['x-svc-signature'],
      'X-SVC-TIMESTAMP': first.headers['x-svc-timestamp'],
    };
    expect(await receive({ rawBody: first.body, headers: mixedCase })).toMatchObject({ status: 200 });
    const second = signedRequest(createTestEvent('customer.deleted'), SECRET);
    expect(await receive({ rawBody: Buffer.from(second.body), headers: new Headers(second.headers), method: 'post' })).toMatchObject({
      status: 200,
      body: { received: true, duplicate: false },
    });
  });

  it('answers a redelivery through the same receiver as a duplicate', async () => {
    const { body, headers } = signedRequest(createTestEvent('invoice.created'), SECRET);
    await receive({ rawBody: body, headers });
    expect((await receive({ rawBody: body, headers })).body).toMatchObject({ duplicate: true });
  });

  it('takes a body still being read, and answers a read that fails with its own code', async () => {
    const { body, headers } = signedRequest(createTestEvent('invoice.created'), SECRET);
    expect(await receive({ rawBody: Promise.resolve(Buffer.from(body)), headers, method: 'POST' })).toMatchObject({ status: 200 });
    const tooLarge = Promise.reject(new ReceiverError('PAYLOAD_TOO_LARGE', 'too large', { max_body_bytes: 10 }));
    expect(await receive({ rawBody: tooLarge, headers, method: 'POST' })).toMatchObject({ status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE' } } });
    const broken = Promise.reject(new Error('socket hang up'));
    expect(await receive({ rawBody: broken, headers, method: 'POST' })).toMatchObject({ status: 500, body: { error: { code: 'INTERNAL_ERROR' } } });
  });

  it('holds no secret anyone can read back', () => {
    expect(JSON.stringify(Object.keys(receiver))).not.toContain('options');
    expect(Object.values(receiver).some((value) => JSON.stringify(value ?? null)?.includes(SECRET))).toBe(false);
  });

  it('answers 500 PAYLOAD_NOT_RAW to a parsed object instead of a misleading 401', async () => {
    const { body, headers } = signedRequest(createTestEvent('invoice.created'), SECRET);
    const response = await receive({ rawBody: JSON.parse(body) as never, headers });
    expect(response).toMatchObject({ status: 500, body: { error: { code: 'PAYLOAD_NOT_RAW' } } });
  });

  const broken: IdempotencyStore = {
    ...memoryStore(),
    claim: () => Promise.reject(new Error('disk full')),
    quarantine: { ...memoryStore().quarantine, put: () => Promise.reject(new Error('disk full')) },
  };

  it.each([
    ['a claim', createTestEvent('invoice.paid')],
    ['keeping an invalid payload', createTestEvent('invoice.paid', { data: { object: { amount: 'lots' as never } } })],
  ])('answers 503 STORE_UNAVAILABLE when the store fails %s, so the sender retries', async (_name, event) => {
    const { body, headers } = signedRequest(event, SECRET);
    const response = await createReceiver({ secret: SECRET, store: broken, logger: false }).receive({ rawBody: body, headers });
    expect(response).toMatchObject({ status: 503, body: { error: { code: 'STORE_UNAVAILABLE' } } });
    expect(JSON.stringify(response.body)).not.toContain('disk full');
  });
});
