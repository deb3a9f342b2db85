import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { constructEvent, WebhookValidationError, WebhookVerificationError } from '../../src/index.js';
import { createTestEvent, signedHeaders } from '../../src/testing/index.js';

const SECRET = 'whsec_constructEventSecret00000000000';

describe('constructEvent: verify and parse in one call', () => {
  const event = createTestEvent('invoice.paid');
  const body = JSON.stringify(event);
  const signed = signedHeaders(body, SECRET);

  const headerShapes: [string, () => Parameters<typeof constructEvent>[1]][] = [
    ['node:http / Express (lower-case keys, string values)', () => ({ ...signed })],
    ['a plain object in any case', () => ({ 'X-Svc-Signature': signed['x-svc-signature'], 'X-SVC-Timestamp': signed['x-svc-timestamp'] })],
    ['a Fetch Headers object', () => new Headers(signed)],
    ['node:http with a header sent once as an array', () => ({ 'x-svc-signature': [signed['x-svc-signature']], 'x-svc-timestamp': signed['x-svc-timestamp'] })],
  ];

  it.each(headerShapes)('takes headers as %s', (_name, headers) => {
    expect(constructEvent(body, headers(), SECRET)).toEqual(event);
    expect(constructEvent(Buffer.from(body), headers(), ['whsec_newSecretAfterRotation', SECRET]).id).toBe(event.id);
  });

  const refusals: [string, () => unknown, string][] = [
    ['a forged signature', () => constructEvent(body, signedHeaders(body, 'whsec_somebodyElse'), SECRET), 'SIGNATURE_MISMATCH'],
    ['a stale timestamp', () => constructEvent(body, signed, SECRET, { now: Date.now() + 301_000 }), 'TIMESTAMP_TOO_OLD'],
    ['a signature header sent twice', () => constructEvent(body, { ...signed, 'x-svc-signature': [signed['x-svc-signature'], 'ab'] }, SECRET), 'MALFORMED_SIGNATURE'],
    ['a timestamp header sent twice', () => constructEvent(body, { ...signed, 'x-svc-timestamp': ['1', '2'] }, SECRET), 'MALFORMED_TIMESTAMP'],
    ['no headers', () => constructEvent(body, {}, SECRET), 'MISSING_SIGNATURE'],
  ];

  it.each(refusals.map(([name, call, code]) => [name, code, call] as const))('refuses %s with WebhookVerificationError %s', (_name, code, call) => {
    expect(call).toThrow(WebhookVerificationError);
    expect(call).toThrow(expect.objectContaining({ code }));
  });

  it('refuses an authentic payload that is not a valid event with WebhookValidationError', () => {
    const invalid = JSON.stringify(createTestEvent('invoice.paid', { data: { object: { amount: 'lots' as never } } }));
    const call = () => constructEvent(invalid, signedHeaders(invalid, SECRET), SECRET);
    expect(call).toThrow(WebhookValidationError);
    expect(call).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', details: expect.objectContaining({ field: 'data.object.amount' }) }));
  });

  it('accepts the legacy header only when asked to', () => {
    const legacy = { 'x-service-signature': `sha256=${createHmacHex(body)}` };
    expect(() => constructEvent(body, legacy, SECRET)).toThrow(expect.objectContaining({ code: 'MISSING_SIGNATURE' }));
    expect(constructEvent(body, legacy, SECRET, { legacySignature: true }).id).toBe(event.id);
  });
});

/** The legacy scheme: HMAC-SHA256 of the body alone, keyed with the whole secret. */
function createHmacHex(body: string): string {
  return createHmac('sha256', SECRET).update(body).digest('hex');
}
