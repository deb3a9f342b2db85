import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { signPayload } from '../../src/index.js';
import { signLegacyPayload } from '../../src/signing/signature.js';

// openssl is an HMAC implementation independent of node:crypto: the signatures must match what a
// receiver in any language computes. A subprocess per case, so this is not in the unit project.

const SECRET = 'whsec_Wm4rT9qLx2VbN7kP3sJd8HfY6cZa1QeR';
const NOW_S = 1_795_000_000;
const BODY = '{"id":"evt_1","type":"invoice.paid"}';

function opensslHmac(key: string, message: Buffer): string {
  const result = spawnSync('openssl', ['dgst', '-sha256', '-hmac', key], { input: message });
  expect(result.status).toBe(0);
  return result.stdout.toString().trim().split('= ').pop()!;
}

describe('signPayload', () => {
  const bodies: [string, Buffer][] = [
    ['ASCII JSON', Buffer.from(BODY)],
    ['umlauts and the euro sign', Buffer.from('{"name":"Bäckerei Größl","amount":"12 €"}')],
    ['binary-looking bytes', Buffer.from([0x00, 0xff, 0x80, 0x7b, 0x0a, 0xc3, 0x28, 0xe2, 0x82])],
    ['an empty body', Buffer.alloc(0)],
  ];

  it.each(bodies)('agrees with openssl dgst -hmac for %s', (_name, body) => {
    const { signature } = signPayload({ payload: body, secret: SECRET, timestamp: NOW_S });
    const message = Buffer.concat([Buffer.from(`${NOW_S}.`), body]);
    expect(signature).toBe(opensslHmac(SECRET, message));
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('legacy signature (x-service-signature: sha256=<hex>)', () => {
  it('agrees with openssl over the body alone', () => {
    const { signature } = signLegacyPayload({ payload: BODY, secret: SECRET });
    expect(signature).toBe(`sha256=${opensslHmac(SECRET, Buffer.from(BODY))}`);
  });
});
