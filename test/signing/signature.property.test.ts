import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signPayload, verifySignature, WebhookVerificationError } from '../../src/index.js';

const NOW_S = 1_795_000_000;
const payload = fc.oneof(fc.string({ unit: 'binary' }), fc.uint8Array({ maxLength: 2048 }));
const secret = fc.string({ minLength: 1, maxLength: 64, unit: 'binary' });
const secrets = fc.array(secret, { minLength: 1, maxLength: 4 });
const hexDigit = fc.constantFrom(...'0123456789abcdefABCDEF'.split(''));
const signatureText = fc.oneof(
  fc.string({ unit: hexDigit, maxLength: 140 }),
  fc.string({ maxLength: 140 }),
  fc.string({ unit: 'binary', maxLength: 140 }),
);
const timestamp = fc.oneof(
  fc.integer({ min: NOW_S - 400, max: NOW_S + 400 }).map(String),
  fc.integer().map(String),
  fc.string({ maxLength: 20 }),
  fc.constantFrom(undefined, null, '', ' ', '1e9', '0x6b', `${NOW_S}.0`, `-${NOW_S}`),
);

function outcome(run: () => unknown): 'accepted' | WebhookVerificationError {
  try {
    run();
    return 'accepted';
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error;
    throw error;
  }
}

describe('verifySignature under random input', () => {
  it('never accepts a signature string that none of the secrets made, and throws nothing but WebhookVerificationError', () => {
    fc.assert(
      fc.property(payload, secrets, signatureText, timestamp, (body, keys, signature, ts) => {
        const result = outcome(() => verifySignature({ payload: body, signature, timestamp: ts, secret: keys, now: NOW_S * 1000 }));
        if (result === 'accepted') {
          // Only possible if the random string is the real signature of one of the keys.
          const genuine = keys.map((key) => signPayload({ payload: body, secret: key, timestamp: Number(ts) }).signature);
          expect(genuine).toContain(signature.toLowerCase());
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('never accepts a signature made with another secret, a changed body or a changed timestamp', () => {
    fc.assert(
      fc.property(payload, secrets, secret, fc.integer({ min: -300, max: 299 }), (body, keys, other, skew) => {
        fc.pre(!keys.includes(other));
        const ts = NOW_S + skew;
        const forged = signPayload({ payload: body, secret: other, timestamp: ts }).signature;
        expect(outcome(() => verifySignature({ payload: body, signature: forged, timestamp: ts, secret: keys, now: NOW_S * 1000 }))).toMatchObject({
          code: 'SIGNATURE_MISMATCH',
        });
        const genuine = signPayload({ payload: body, secret: keys[0]!, timestamp: ts }).signature;
        const changed = typeof body === 'string' ? `${body}x` : Uint8Array.from([...body, 0]);
        expect(outcome(() => verifySignature({ payload: changed, signature: genuine, timestamp: ts, secret: keys, now: NOW_S * 1000 }))).toMatchObject({
          code: 'SIGNATURE_MISMATCH',
        });
        expect(outcome(() => verifySignature({ payload: body, signature: genuine, timestamp: ts + 1, secret: keys, now: NOW_S * 1000 }))).toMatchObject({
          code: 'SIGNATURE_MISMATCH',
        });
      }),
      { numRuns: 1000 },
    );
  });

  it('accepts every genuine signature within the window, naming the secret that made it', () => {
    fc.assert(
      fc.property(payload, secrets, fc.nat(), fc.integer({ min: -300, max: 300 }), (body, keys, pick, skew) => {
        const index = pick % keys.length;
        const ts = NOW_S + skew;
        const { signature } = signPayload({ payload: body, secret: keys[index]!, timestamp: ts });
        const result = verifySignature({ payload: body, signature, timestamp: ts, secret: keys, now: NOW_S * 1000 });
        expect(keys[result.secretIndex]).toBe(keys[index]);
      }),
      { numRuns: 1000 },
    );
  });

  it('compares signatures of every length without an early exit or an exception', () => {
    const body = '{"id":"evt_len"}';
    const real = signPayload({ payload: body, secret: 'whsec_len', timestamp: NOW_S }).signature;
    for (let length = 1; length <= 130; length++) {
      for (const candidate of [real.repeat(3).slice(0, length), 'f'.repeat(length)]) {
        const result = outcome(() => verifySignature({ payload: body, signature: candidate, timestamp: NOW_S, secret: ['whsec_a', 'whsec_len'], now: NOW_S * 1000 }));
        if (length === 64 && candidate === real) expect(result).toBe('accepted');
        else expect(result).toMatchObject({ code: 'SIGNATURE_MISMATCH', details: { secrets_tried: 2 } });
      }
    }
  });
});
