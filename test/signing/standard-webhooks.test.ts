import { createHmac, generateKeyPairSync, sign as nodeSign } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signStandardWebhook, verifyStandardWebhook, WebhookVerificationError, type VerifyStandardWebhookOptions } from '../../src/index.js';
import { generateSigningKeyPair } from '../../src/dispatcher.js';
import { publicKeyOf } from '../../src/signing/standard-webhooks.js';

const KEY = Buffer.alloc(32, 7);
const SECRET = `whsec_${KEY.toString('base64')}`;
const OTHER = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const NOW_S = 1_795_000_000;
const NOW_MS = NOW_S * 1000;
const BODY = '{"id":"evt_1","type":"invoice.paid","betrag":"€ 5"}';

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.code;
    throw error;
  }
  return 'OK';
}

/** An independent v1: node:crypto inline, as the standard describes it. */
const v1 = (key: Buffer, id: string, seconds: number, body: string) => `v1,${createHmac('sha256', key).update(`${id}.${seconds}.${body}`).digest('base64')}`;

function verify(overrides: Partial<VerifyStandardWebhookOptions> = {}) {
  return verifyStandardWebhook({ payload: BODY, id: 'evt_1', timestamp: String(NOW_S), signature: v1(KEY, 'evt_1', NOW_S, BODY), secret: SECRET, now: NOW_MS, ...overrides });
}

describe('signStandardWebhook', () => {
  it('signs v1 as the standard describes it, and the reference library accepts it', () => {
    const signed = signStandardWebhook({ id: 'msg_1', payload: BODY, secret: SECRET, timestamp: NOW_S });
    expect(signed.headers).toEqual({ 'webhook-id': 'msg_1', 'webhook-timestamp': String(NOW_S), 'webhook-signature': v1(KEY, 'msg_1', NOW_S, BODY) });
    expect(new StandardWebhook(SECRET).sign('msg_1', new Date(NOW_MS), BODY)).toBe(signed.signature);
  });

  it('signs with each secret of a list, in order, and v1a with a whsk_ key', () => {
    const { privateKey, publicKey } = generateSigningKeyPair();
    const signed = signStandardWebhook({ id: 'msg_1', payload: BODY, secret: [privateKey, SECRET], timestamp: NOW_S });
    const [first, second] = signed.signature.split(' ');
    expect(first).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(second).toBe(v1(KEY, 'msg_1', NOW_S, BODY));
    expect(publicKeyOf(privateKey)).toBe(publicKey);
    expect(() => signStandardWebhook({ id: 'm', payload: BODY, secret: publicKey })).toThrow(expect.objectContaining({ code: 'NO_SECRET' }));
  });
});

describe('verifyStandardWebhook', () => {
  it('accepts a valid v1 and tells which secret, which version and the verified id and timestamp', () => {
    expect(verify({ secret: [OTHER, SECRET] })).toEqual({ secretIndex: 1, version: 'v1', id: 'evt_1', timestamp: NOW_S });
  });

  it('accepts what the reference library signs, and a key given without the prefix or in URL-safe base64', () => {
    const signature = new StandardWebhook(SECRET).sign('evt_1', new Date(NOW_MS), BODY);
    expect(verify({ signature }).version).toBe('v1');
    expect(verify({ secret: KEY.toString('base64') }).secretIndex).toBe(0);
    expect(verify({ secret: `whsec_${KEY.toString('base64url')}` }).secretIndex).toBe(0);
  });

  it('accepts a v1a signature made by node:crypto with a whpk_ key built from the raw public key', () => {
    const pair = generateKeyPairSync('ed25519');
    const raw = pair.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
    const signature = `v1a,${nodeSign(null, Buffer.from(`evt_1.${NOW_S}.${BODY}`), pair.privateKey).toString('base64')}`;
    expect(verify({ signature, secret: `whpk_${raw.toString('base64')}` })).toMatchObject({ version: 'v1a', secretIndex: 0 });
    expect(codeOf(() => verify({ signature, secret: `whpk_${raw.toString('base64')}`, payload: `${BODY} ` }))).toBe('SIGNATURE_MISMATCH');
  });

  it('skips unknown versions and accepts any one valid signature of several', () => {
    const valid = v1(KEY, 'evt_1', NOW_S, BODY);
    expect(verify({ signature: `v2,abcd v1,${Buffer.alloc(32).toString('base64')} ${valid}` }).version).toBe('v1');
    const refused = (() => {
      try {
        verify({ signature: 'v2,abcd v9z,AAAA' });
      } catch (error) {
        return error as WebhookVerificationError;
      }
      throw new Error('accepted');
    })();
    expect(refused.code).toBe('SIGNATURE_MISMATCH');
    expect(refused.details.hints).toEqual(['the header has no v1 or v1a signature (only v2, v9z)']);
  });

  it.each([
    ['a changed body', { payload: BODY.replace('€', 'E') }, 'SIGNATURE_MISMATCH'],
    ['a changed id', { id: 'evt_2' }, 'SIGNATURE_MISMATCH'],
    ['the wrong secret', { secret: OTHER }, 'SIGNATURE_MISMATCH'],
    ['a stale timestamp', { now: NOW_MS + 301_000 }, 'TIMESTAMP_TOO_OLD'],
    ['a future timestamp', { now: NOW_MS - 301_000 }, 'TIMESTAMP_IN_FUTURE'],
    ['no id', { id: undefined }, 'MISSING_WEBHOOK_ID'],
    ['an id with a space', { id: 'evt 1' }, 'MALFORMED_WEBHOOK_ID'],
    ['an id sent twice', { id: ['evt_1', 'evt_1'] }, 'MALFORMED_WEBHOOK_ID'],
    ['an id of 257 characters', { id: 'e'.repeat(257) }, 'MALFORMED_WEBHOOK_ID'],
    ['no timestamp', { timestamp: '' }, 'MISSING_TIMESTAMP'],
    ['a timestamp in milliseconds', { timestamp: String(NOW_MS) }, 'TIMESTAMP_IN_FUTURE'],
    ['a timestamp that is not a number', { timestamp: '17950000x0' }, 'MALFORMED_TIMESTAMP'],
    ['no signature', { signature: undefined }, 'MISSING_SIGNATURE'],
    ['a signature without a version', { signature: 'K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=' }, 'MALFORMED_SIGNATURE'],
    ['a signature that is not base64', { signature: 'v1,not base64!' }, 'MALFORMED_SIGNATURE'],
    ['eleven signatures', { signature: Array.from({ length: 11 }, () => 'v1,AAAA').join(' ') }, 'MALFORMED_SIGNATURE'],
    ['a signature header sent twice', { signature: ['v1,AAAA', 'v1,AAAA'] }, 'MALFORMED_SIGNATURE'],
    ['a whsk_ private key as the secret', { secret: generateSigningKeyPair().privateKey }, 'NO_SECRET'],
    ['a whpk_ key of the wrong length', { secret: `whpk_${Buffer.alloc(31).toString('base64')}` }, 'NO_SECRET'],
    ['no secret', { secret: '' }, 'NO_SECRET'],
  ] as const)('refuses %s with %s', (_name, overrides, code) => {
    expect(codeOf(() => verify(overrides as Partial<VerifyStandardWebhookOptions>))).toBe(code);
  });

  it('checks the time window before any key is used, and a parsed body is refused', () => {
    expect(codeOf(() => verify({ now: NOW_MS + 400_000, secret: OTHER }))).toBe('TIMESTAMP_TOO_OLD');
    expect(codeOf(() => verify({ payload: JSON.parse(BODY) as never }))).toBe('PAYLOAD_NOT_RAW');
  });
});
