import { describe, expect, it } from 'vitest';
import { memoryStore, receive, type IdempotencyStore, type WebhookHandlerOptions } from '../../src/index.js';
import { createTestEvent, signedRequest } from '../../src/testing/index.js';

const SECRET = 'whsec_coreReceiveSecret00000000000000';

describe('receive: the framework-free core', () => {
  const options: WebhookHandlerOptions = { secret: SECRET, store: memoryStore(), logger: false };

  it('takes plain header objects in any case, and Fetch Headers', async () => {
    const first = signedRequest(createTestEvent('customer.deleted'), SECRET);
    const mixedCase = {
      'Content-Type': 'application/json',
      'X-Svc-Signature': first.headers['x-svc-signature'],
      'X-SVC-TIMESTAMP': first.headers['x-svc-timestamp'],
    };
    expect(await receive({ rawBody: first.body, headers: mixedCase }, options)).toMatchObject({ status: 200 });
    const second = signedRequest(createTestEvent('customer.deleted'), SECRET);
    expect(await receive({ rawBody: Buffer.from(second.body), headers: new Headers(second.headers), method: 'post' }, options)).toMatchObject({
      status: 200,
      body: { received: true, duplicate: false },
    });
  });

  it('resolves the options once per options object: a redelivery through receive() is a duplicate', async () => {
    const { body, headers } = signedRequest(createTestEvent('invoice.created'), SECRET);
    await receive({ rawBody: body, headers }, options);
    expect((await receive({ rawBody: body, headers }, options)).body).toMatchObject({ duplicate: true });
  });

  it('answers 500 PAYLOAD_NOT_RAW to a parsed object instead of a misleading 401', async () => {
    const { body, headers } = signedRequest(createTestEvent('invoice.created'), SECRET);
    const response = await receive({ rawBody: JSON.parse(body) as never, headers }, options);
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
    const response = await receive({ rawBody: body, headers }, { secret: SECRET, store: broken, logger: false });
    expect(response).toMatchObject({ status: 503, body: { error: { code: 'STORE_UNAVAILABLE' } } });
    expect(JSON.stringify(response.body)).not.toContain('disk full');
  });
});
