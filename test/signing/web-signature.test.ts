import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { base64url } from '../../src/kernel/ids.js';
import { asBuffer, concatBytes, utf8Length } from '../../src/kernel/bytes.js';
import { sha256Hex } from '../../src/kernel/sha256.js';
import { constantTimeEqual, matchingSecret, prepareVerification, type HmacEngine } from '../../src/signing/signature-scheme.js';
import { nodeHmac, signPayload } from '../../src/signing/signature.js';
import { webHmac } from '../../src/signing/web-signature.js';
import { fetchHandler, memoryStore } from '../../src/web.js';
import { WebhookVerificationError } from '../../src/kernel/errors.js';
import { createTestEvent } from '../../src/testing/index.js';

const SECRET = 'whsec_web_3f9a1c7e';
const NOW_MS = 1_795_000_000_000;

afterEach(() => vi.restoreAllMocks());

/** Verifies with an engine, as the receiver does: prepare, digests, compare. */
async function verifyWith(engine: HmacEngine, secrets: string[], payload: string | Uint8Array, headers: Record<string, string>): Promise<number> {
  const keys = engine(secrets);
  const prepared = prepareVerification({
    payload,
    secret: secrets,
    signature: headers['x-svc-signature'],
    timestamp: headers['x-svc-timestamp'],
    toleranceSeconds: 300,
    now: NOW_MS,
    decodeClaim: keys.decodeClaim,
  });
  return matchingSecret(prepared, await keys.digests(prepared.prefix, prepared.body), keys.equal);
}

describe('WebCrypto HMAC (acct-webhook/web) against node:crypto', () => {
  it('computes the same digests for any body and secrets', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), fc.array(fc.string({ minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 3 }), fc.string({ maxLength: 12 }), async (body, secrets, prefix) => {
        const web = await webHmac(secrets).digests(prefix, body);
        const node = nodeHmac(secrets).digests(prefix, body) as Uint8Array[];
        expect(web.map((d) => Buffer.from(d).toString('hex'))).toEqual(node.map((d) => Buffer.from(d).toString('hex')));
      }),
      { numRuns: 60 },
    );
  });

  it('decodes the claim alike: node:crypto\'s native hex decoding and the scheme\'s own accept and refuse the same signatures', async () => {
    const body = '{"id":"evt_1"}';
    const { headers } = signPayload({ payload: body, secret: SECRET, timestamp: NOW_MS / 1000 });
    const genuine = headers['x-svc-signature'];
    const outcome = async (engine: HmacEngine, signature: string) =>
      verifyWith(engine, [SECRET], body, { ...headers, 'x-svc-signature': signature }).catch((error: unknown) => (error as WebhookVerificationError).code);
    // One character of the genuine signature replaced (any character, ASCII or not, or one whose
    // low byte is a hexadecimal digit's), or added, or removed.
    const character = fc.oneof(
      fc.string({ minLength: 1, maxLength: 1, unit: 'binary' }),
      fc.tuple(fc.integer({ min: 1, max: 0xff }), fc.constantFrom(...'0123456789abcdefABCDEF')).map(([high, digit]) => String.fromCharCode((high << 8) | digit.charCodeAt(0))),
    );
    const claim = fc.oneof(
      fc.tuple(fc.nat({ max: 63 }), character).map(([at, char]) => genuine.slice(0, at) + char + genuine.slice(at + 1)),
      character.map((char) => genuine + char),
      fc.nat({ max: 63 }).map((at) => genuine.slice(0, at) + genuine.slice(at + 1)),
    );
    await fc.assert(
      fc.asyncProperty(claim, async (signature) => {
        expect(await outcome(nodeHmac, signature)).toEqual(await outcome(webHmac, signature));
      }),
      { numRuns: 400 },
    );
    // The native path's edges: the last digit, a digit beyond ASCII, and upper case.
    for (const [signature, expected] of [
      [`${genuine.slice(0, 63)}g`, 'MALFORMED_SIGNATURE'],
      [`${genuine.slice(0, 10)}\u0663${genuine.slice(11)}`, 'MALFORMED_SIGNATURE'],
      [genuine.toUpperCase(), 0],
    ] as const) {
      expect(await outcome(nodeHmac, signature)).toBe(expected);
      expect(await outcome(webHmac, signature)).toBe(expected);
    }
  });

  it('verifies what signPayload signed, finds the rotated secret, and refuses a changed body with SIGNATURE_MISMATCH', async () => {
    const body = JSON.stringify(createTestEvent('invoice.paid'));
    const { headers } = signPayload({ payload: body, secret: SECRET, timestamp: NOW_MS / 1000 });
    expect(await verifyWith(webHmac, [SECRET], body, headers)).toBe(0);
    expect(await verifyWith(webHmac, ['whsec_new', SECRET], new TextEncoder().encode(body), headers)).toBe(1);
    const error = await verifyWith(webHmac, [SECRET], `${body} `, headers).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect((error as WebhookVerificationError).code).toBe('SIGNATURE_MISMATCH');
  });

  it('imports each secret\'s key once, on the first request, not per request', async () => {
    const importKey = vi.spyOn(crypto.subtle, 'importKey');
    const keys = webHmac([SECRET, 'whsec_previous']);
    expect(importKey).not.toHaveBeenCalled();
    await Promise.all([keys.digests('1.', 'a'), keys.digests('2.', 'b')]);
    await keys.digests('3.', 'c');
    expect(importKey).toHaveBeenCalledTimes(2);
  });

  it('tries the import again after one failed, instead of failing every request after it', async () => {
    const importKey = vi.spyOn(crypto.subtle, 'importKey').mockRejectedValueOnce(new Error('import failed'));
    const keys = webHmac([SECRET]);
    await expect(keys.digests('1.', 'a')).rejects.toThrow('import failed');
    expect((await keys.digests('1.', 'a'))[0]).toHaveLength(32);
    expect(importKey).toHaveBeenCalledTimes(2);
  });

  it('compares bytes in constant time: equal only when every byte is', () => {
    const digest = randomBytes(32);
    expect(constantTimeEqual(digest, Uint8Array.from(digest))).toBe(true);
    for (const position of [0, 17, 31]) {
      const other = Uint8Array.from(digest);
      other[position]! ^= 1;
      expect(constantTimeEqual(digest, other)).toBe(false);
    }
    expect(constantTimeEqual(digest, digest.subarray(0, 31))).toBe(false);
  });
});

describe('the byte helpers that stand in for Buffer and node:crypto', () => {
  it('sha256Hex is SHA-256 as node:crypto computes it, text and bytes, across the padding boundaries', () => {
    for (const length of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000]) {
      const bytes = randomBytes(length);
      expect(sha256Hex(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
    expect(sha256Hex('Bäckerei Größl 12 €')).toBe(createHash('sha256').update('Bäckerei Größl 12 €').digest('hex'));
  });

  it('base64url writes what Buffer writes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        expect(base64url(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
      }),
    );
  });

  it('utf8Length counts what Buffer.byteLength counts, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(utf8Length(text)).toBe(Buffer.byteLength(text));
      }),
    );
    expect(utf8Length('a\uD800b')).toBe(Buffer.byteLength('a\uD800b'));
  });

  it('asBuffer and concatBytes give Buffers on Node.js, without copying one chunk', () => {
    const chunk = new Uint8Array([1, 2, 3]);
    expect(Buffer.isBuffer(asBuffer(chunk))).toBe(true);
    expect(asBuffer(chunk).buffer).toBe(chunk.buffer);
    expect(concatBytes([chunk], 3)).toBe(chunk);
    expect([...concatBytes([chunk, new Uint8Array([4])], 4)]).toEqual([1, 2, 3, 4]);
  });
});

describe('fetchHandler of acct-webhook/web on Node.js', () => {
  it('refuses to start without a store (there is no SQLite file to default to), naming the option', () => {
    expect(() => fetchHandler({ secret: SECRET })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: expect.objectContaining({ option: 'store' }) }));
    expect(() => fetchHandler({ secret: SECRET, database: './x.db' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: expect.objectContaining({ option: 'database' }) }));
  });

  it('answers as the Node.js fetchHandler does: 200, duplicate, 401', async () => {
    const handler = fetchHandler({ secret: SECRET, store: memoryStore(), logger: false });
    const event = createTestEvent('invoice.paid');
    const body = JSON.stringify(event);
    const post = (payload: string, headers: Record<string, string>) => handler(new Request('http://127.0.0.1/webhooks', { method: 'POST', body: payload, headers }));
    const { headers } = signPayload({ payload: body, secret: SECRET });
    expect(await (await post(body, headers)).json()).toEqual({ received: true, id: event.id, type: 'invoice.paid', duplicate: false });
    expect(await (await post(body, headers)).json()).toMatchObject({ duplicate: true });
    const tampered = await post(body.replace('invoice.paid', 'invoice.sent'), headers);
    expect(tampered.status).toBe(401);
    expect(await tampered.json()).toMatchObject({ error: { code: 'SIGNATURE_MISMATCH' } });
    await handler.receiver.close();
  });
});
