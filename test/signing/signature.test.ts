import { describe, expect, it } from 'vitest';
import { ConfigurationError, signPayload, verifySignature, WebhookVerificationError, type VerifySignatureOptions } from '../../src/index.js';
import { signLegacyPayload, verifyLegacySignature } from '../../src/signing/signature.js';

const SECRET = 'whsec_Wm4rT9qLx2VbN7kP3sJd8HfY6cZa1QeR';
const OLD_SECRET = 'whsec_previousSecretBeforeRotation0000';
const NOW_S = 1_795_000_000;
const NOW_MS = NOW_S * 1000;
const BODY = '{"id":"evt_1","type":"invoice.paid"}';

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof WebhookVerificationError || error instanceof ConfigurationError) return error.code;
    throw error;
  }
  return 'OK';
}

function verify(overrides: Partial<VerifySignatureOptions> = {}) {
  const signed = signPayload({ payload: BODY, secret: SECRET, timestamp: NOW_S });
  return verifySignature({
    payload: BODY,
    signature: signed.signature,
    timestamp: signed.timestamp,
    secret: SECRET,
    now: NOW_MS,
    ...overrides,
  });
}

// Agreement with openssl (an independent HMAC) is checked in signature.integration.test.ts.
describe('signPayload', () => {
  it('signs strings, Buffers, Uint8Arrays and ArrayBuffers of the same bytes alike', () => {
    const bytes = Buffer.from('{"betrag":"€ 5"}');
    const sign = (payload: Parameters<typeof signPayload>[0]['payload']) =>
      signPayload({ payload, secret: SECRET, timestamp: NOW_S }).signature;
    const expected = sign(bytes.toString('utf8'));
    expect(sign(bytes)).toBe(expected);
    expect(sign(new Uint8Array(bytes))).toBe(expected);
    expect(sign(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))).toBe(expected);
  });

  it('returns both headers with the timestamp in seconds', () => {
    const signed = signPayload({ payload: BODY, secret: SECRET, timestamp: NOW_S });
    expect(signed.headers).toEqual({ 'x-svc-signature': signed.signature, 'x-svc-timestamp': String(NOW_S) });
  });

  it('defaults the timestamp to the current time', () => {
    const before = Math.floor(Date.now() / 1000);
    const { timestamp } = signPayload({ payload: BODY, secret: SECRET });
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });
});

describe('verifySignature', () => {
  it('accepts a request signed with the secret and reports which secret matched', () => {
    expect(verify()).toEqual({ secretIndex: 0, timestamp: NOW_S });
  });

  it('accepts the signature in upper-case hex', () => {
    const { signature } = signPayload({ payload: BODY, secret: SECRET, timestamp: NOW_S });
    expect(verify({ signature: signature.toUpperCase() })).toEqual({ secretIndex: 0, timestamp: NOW_S });
  });

  const signature = signPayload({ payload: BODY, secret: SECRET, timestamp: NOW_S }).signature;
  const cases: [string, Partial<VerifySignatureOptions>, string][] = [
    ['missing signature', { signature: undefined }, 'MISSING_SIGNATURE'],
    ['empty signature', { signature: '' }, 'MISSING_SIGNATURE'],
    ['non-hex signature', { signature: 'z'.repeat(64) }, 'MALFORMED_SIGNATURE'],
    ['legacy-style signature', { signature: `sha256=${signature}` }, 'MALFORMED_SIGNATURE'],
    ['one non-hex digit at the end of an odd-length signature', { signature: `${signature}g` }, 'MALFORMED_SIGNATURE'],
    ['one non-hex digit past the 64th', { signature: `${signature}0g` }, 'MALFORMED_SIGNATURE'],
    ['one non-hex digit in the middle', { signature: `${signature.slice(0, 31)}:${signature.slice(32)}` }, 'MALFORMED_SIGNATURE'],
    ['missing timestamp', { timestamp: undefined }, 'MISSING_TIMESTAMP'],
    ['empty timestamp', { timestamp: ' ' }, 'MISSING_TIMESTAMP'],
    ['timestamp with letters', { timestamp: '17950x0000' }, 'MALFORMED_TIMESTAMP'],
    ['negative timestamp', { timestamp: '-1795000000' }, 'MALFORMED_TIMESTAMP'],
    ['fractional timestamp', { timestamp: '1795000000.5' }, 'MALFORMED_TIMESTAMP'],
    ['ISO date as timestamp', { timestamp: '2026-11-22T10:00:00Z' }, 'MALFORMED_TIMESTAMP'],
    ['301 s old', { now: NOW_MS + 301_000 }, 'TIMESTAMP_TOO_OLD'],
    ['301 s in the future', { now: NOW_MS - 301_000 }, 'TIMESTAMP_IN_FUTURE'],
    ['milliseconds instead of seconds', { timestamp: String(NOW_MS) }, 'TIMESTAMP_IN_FUTURE'],
    ['wrong secret', { secret: 'whsec_someoneElsesSecret' }, 'SIGNATURE_MISMATCH'],
    ['tampered body', { payload: BODY.replace('paid', 'sent') }, 'SIGNATURE_MISMATCH'],
    ['other timestamp than signed', { timestamp: NOW_S + 1 }, 'SIGNATURE_MISMATCH'],
    ['signature one digit short', { signature: signature.slice(0, 63) }, 'SIGNATURE_MISMATCH'],
    ['signature one digit long', { signature: `${signature}0` }, 'SIGNATURE_MISMATCH'],
    ['signature twice as long', { signature: signature + signature }, 'SIGNATURE_MISMATCH'],
    ['truncated to 32 digits', { signature: signature.slice(0, 32) }, 'SIGNATURE_MISMATCH'],
    ['empty secret', { secret: '' }, 'NO_SECRET'],
    ['empty secret list', { secret: [] }, 'NO_SECRET'],
    ['secret list with an empty entry', { secret: [SECRET, ''] }, 'NO_SECRET'],
    ['a parsed object as payload', { payload: JSON.parse(BODY) as never }, 'PAYLOAD_NOT_RAW'],
    ['negative tolerance', { toleranceSeconds: -1 }, 'INVALID_CONFIGURATION'],
  ];

  // The name and the expected code first, so that the test's name says both.
  it.each(cases.map(([name, overrides, code]) => [name, code, overrides] as const))('%s → %s', (_name, code, overrides) => {
    expect(codeOf(() => verify(overrides))).toBe(code);
  });

  const edges: [string, number, string][] = [
    ['exactly 300 s old', NOW_MS + 300_000, 'OK'],
    ['300.999 s old (whole seconds count)', NOW_MS + 300_999, 'OK'],
    ['301 s old', NOW_MS + 301_000, 'TIMESTAMP_TOO_OLD'],
    ['exactly 300 s ahead', NOW_MS - 300_000, 'OK'],
    ['301 s ahead', NOW_MS - 301_000, 'TIMESTAMP_IN_FUTURE'],
  ];

  it.each(edges.map(([name, now, code]) => [name, code, now] as const))('window edge: %s → %s', (_name, code, now) => {
    expect(codeOf(() => verify({ now }))).toBe(code);
  });

  it('honours a custom tolerance', () => {
    expect(codeOf(() => verify({ now: NOW_MS + 61_000, toleranceSeconds: 60 }))).toBe('TIMESTAMP_TOO_OLD');
    expect(codeOf(() => verify({ now: NOW_MS + 60_000, toleranceSeconds: 60 }))).toBe('OK');
  });

  it('accepts any secret of a rotation list and says which one matched', () => {
    const signedWithOld = signPayload({ payload: BODY, secret: OLD_SECRET, timestamp: NOW_S });
    const result = verifySignature({
      payload: BODY,
      signature: signedWithOld.signature,
      timestamp: NOW_S,
      secret: [SECRET, OLD_SECRET],
      now: NOW_MS,
    });
    expect(result.secretIndex).toBe(1);
  });

  it('accepts upper-case hex: the bytes are the same', () => {
    expect(verify({ signature: signature.toUpperCase() }).secretIndex).toBe(0);
  });

  it('verifies the raw bytes, whatever their type', () => {
    const bytes = Buffer.from(BODY);
    expect(verify({ payload: bytes }).secretIndex).toBe(0);
    expect(verify({ payload: new Uint8Array(bytes) }).secretIndex).toBe(0);
  });

  it('tells how many secrets were tried and never the expected signature', () => {
    try {
      verify({ signature: 'ab'.repeat(32), secret: [OLD_SECRET, SECRET] });
      expect.unreachable();
    } catch (error) {
      const e = error as WebhookVerificationError;
      expect(e.code).toBe('SIGNATURE_MISMATCH');
      expect(e.details.secrets_tried).toBe(2);
      const everything = `${e.message} ${JSON.stringify(e.details)}`;
      expect(everything).not.toContain(signature);
      expect(everything).not.toContain(SECRET);
    }
  });

  it('hints at a secret with whitespace or without the whsec_ prefix', () => {
    try {
      verify({ secret: ` ${SECRET}\n` });
      expect.unreachable();
    } catch (error) {
      expect((error as WebhookVerificationError).details.hints).toEqual(
        expect.arrayContaining([expect.stringContaining('whitespace')]),
      );
    }
    try {
      verify({ secret: SECRET.slice('whsec_'.length) });
      expect.unreachable();
    } catch (error) {
      expect((error as WebhookVerificationError).details.hints).toEqual(
        expect.arrayContaining([expect.stringContaining('whsec_')]),
      );
    }
  });

  it('states the skew in seconds', () => {
    try {
      verify({ now: NOW_MS + 450_000 });
      expect.unreachable();
    } catch (error) {
      expect((error as WebhookVerificationError).details).toMatchObject({ skew_seconds: 450, tolerance_seconds: 300 });
    }
  });

  it('explains the raw-body rule when given a parsed object', () => {
    try {
      verify({ payload: { id: 'evt_1' } as never });
      expect.unreachable();
    } catch (error) {
      expect((error as WebhookVerificationError).code).toBe('PAYLOAD_NOT_RAW');
      expect((error as Error).message).toMatch(/raw/);
    }
  });
});

describe('legacy signature (x-service-signature: sha256=<hex>)', () => {
  it('round-trips (its agreement with openssl is checked in signature.integration.test.ts)', () => {
    const { signature, headers } = signLegacyPayload({ payload: BODY, secret: SECRET });
    expect(headers['x-service-signature']).toBe(signature);
    expect(verifyLegacySignature({ payload: BODY, signature, secret: [OLD_SECRET, SECRET] })).toEqual({ secretIndex: 1 });
  });

  const legacy = signLegacyPayload({ payload: BODY, secret: SECRET }).signature;
  const cases: [string, string | undefined, string, string][] = [
    ['missing header', undefined, BODY, 'MISSING_SIGNATURE'],
    ['bare hex without sha256=', legacy.slice(7), BODY, 'MALFORMED_SIGNATURE'],
    ['tampered body', legacy, `${BODY} `, 'SIGNATURE_MISMATCH'],
  ];
  it.each(cases.map(([name, signature, payload, code]) => [name, code, signature, payload] as const))('%s → %s', (_name, code, signature, payload) => {
    expect(codeOf(() => verifyLegacySignature({ payload, signature, secret: SECRET }))).toBe(code);
  });
});
