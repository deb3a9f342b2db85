import { constantTimeEqual, type HmacEngine } from './signature-scheme.js';

/*
 * The receiver's HMAC on runtimes without Node's modules (Cloudflare Workers without
 * nodejs_compat, edge runtimes): WebCrypto, which every one of them has as `crypto.subtle`.
 * Nothing here imports a module; acct-webhook/web builds its receivers with it.
 */

const encoder = new TextEncoder();

/** WebCrypto's key object, named without the DOM library's types. */
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

/**
 * WebCrypto's HMAC-SHA256 under each secret. The keys are imported once for the list, on the
 * first request (importKey is asynchronous, and a factory is not), and reused by every request
 * after it; digests are compared in constant time on their bytes ({@link constantTimeEqual}).
 */
export const webHmac: HmacEngine = (secrets) => {
  let keys: Promise<HmacKey[]> | undefined;
  const imported = (): Promise<HmacKey[]> =>
    (keys ??= Promise.all(
      secrets.map((secret) => crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])),
    ).catch((error: unknown) => {
      // A failed import is tried again on the next request rather than remembered.
      keys = undefined;
      throw error;
    }));
  return {
    digests: async (prefix, body) => {
      const message = signedMessage(prefix, body);
      const macs = await Promise.all((await imported()).map((key) => crypto.subtle.sign('HMAC', key, message)));
      return macs.map((mac) => new Uint8Array(mac));
    },
    equal: constantTimeEqual,
  };
};

/** `prefix` then `body` as one byte array, the message WebCrypto signs. */
function signedMessage(prefix: string, body: Uint8Array | string): Uint8Array<ArrayBuffer> {
  const head = encoder.encode(prefix);
  const tail = typeof body === 'string' ? encoder.encode(body) : body;
  const message = new Uint8Array(head.byteLength + tail.byteLength);
  message.set(head, 0);
  message.set(tail, head.byteLength);
  return message;
}
